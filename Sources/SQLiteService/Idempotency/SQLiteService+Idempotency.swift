import Foundation
import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// The write of `request`, made by its route's `make`, under its `Idempotency-Key` when it carries one: the one
    /// place every write endpoint (`/update`, `/batch`, `/transaction`, the Tables API's writes) gets its key
    /// handling, for both storages.
    ///
    /// The key is checked first (400 for a malformed one, before anything else of the request), then the request is
    /// decoded; a keyed request then claims its key on this node (409 or 422 while it runs, see
    /// ``IdempotencyRegistry``), and runs through ``IdempotentWrite`` in one transaction. The caller releases
    /// ``StorageWrite/claim`` just before sending the answer.
    func storageWrite(
        _ make: Route.WriteMaker,
        _ request: HTTPRequest,
        settings: ServiceSettings,
        tokenName: String?
    ) throws(APIError) -> StorageWrite {
        let key = try IdempotencyKey(request, tokenName: tokenName)
        let write = try make(self, request, settings.limits)
        guard let key else { return write }
        let (claim, run) = try claimKey(key, of: request, settings: settings)
        // One transaction whatever the endpoint: the key's row commits with the request's changes (a `/batch`'s
        // statements each in a savepoint of their own inside it).
        var keyed = StorageWrite(deadline: write.deadline, bytes: write.bytes, isOneTransaction: true) {
            session throws(APIError) in try run.run(write, on: session)
        }
        keyed.claim = claim
        return keyed
    }
}

extension SQLiteService {
    /// Claims `key` for `request` on this node (409 or 422 while another request holds it, counted in the metrics)
    /// and makes the keyed run of the request: the one place both the write endpoints (``storageWrite(_:_:settings:tokenName:)``)
    /// and the keyed commit of `/transactions` take a key. The caller releases the claim once the request is answered.
    func claimKey(
        _ key: IdempotencyKey,
        of request: HTTPRequest,
        settings: ServiceSettings
    ) throws(APIError) -> (IdempotencyClaim, IdempotentWrite) {
        let fingerprint = IdempotencyFingerprint(request)
        let metrics = settings.options.metrics
        let claim: IdempotencyClaim
        do {
            claim = try idempotencyRunning.claim(key, fingerprint)
        } catch {
            if let idempotency = metrics?.idempotency {
                (error.status == 409 ? idempotency.inProgress : idempotency.reused).increment()
            }
            throw error
        }
        let run = IdempotentWrite(
            key: key,
            fingerprint: fingerprint,
            retention: settings.options.idempotencyRetentionSeconds,
            metrics: metrics
        )
        return (claim, run)
    }

    /// Whether a pass of ``expireIdempotencyKeys()`` is due now (true for one caller per interval).
    func idempotencyExpiryIsDue() -> Bool {
        idempotencyExpiry.isDue(
            now: Int64(Date().timeIntervalSince1970),
            retention: settings.options.idempotencyRetentionSeconds
        )
    }

    /// Deletes the keys older than `idempotency.retention` (see ``IdempotencyExpiryScheduler``) in one pass over
    /// the table, a step of ``IdempotentWrite/sweepChunk`` keys at a time: each step on the local writer between
    /// write groups, or on the cluster's leader, so that writes go on between the steps. Records how many keys are
    /// left.
    public func expireIdempotencyKeys() throws(APIError) {
        let cutoff = Int64(Date().timeIntervalSince1970) - settings.options.idempotencyRetentionSeconds
        var position: IdempotentWrite.SweepPosition? = IdempotentWrite.SweepPosition()
        var left = 0
        while let after = position {
            let step = try sweepIdempotencyKeys(after: after, before: cutoff)
            position = step.next
            left += step.left
        }
        settings.options.metrics?.idempotency.stored.record(left)
    }

    /// One step of ``expireIdempotencyKeys()`` on the storage.
    private func sweepIdempotencyKeys(
        after position: IdempotentWrite.SweepPosition,
        before cutoff: Int64
    ) throws(APIError) -> (next: IdempotentWrite.SweepPosition?, left: Int) {
        switch storage {
        case .local(let pool):
            do {
                // Not behind an interactive transaction for longer than a write would wait: the next pass comes.
                return try pool.write(waitingUntil: .now + settings.limits.writerWaitTimeout) { db in
                    try IdempotentWrite.sweep(after: position, before: cutoff) { sql, arguments throws(APIError) in
                        try LocalWriteSession(db).serverStatement(sql, arguments)
                    }
                }
            } catch let error as APIError {
                throw error
            } catch {
                throw APIError(error, db: nil)
            }
        case .cluster(let cluster):
            let target = ClusterTarget.client(cluster.writer)
            return try IdempotentWrite.sweep(after: position, before: cutoff) { sql, arguments throws(APIError) in
                try target.serverStatement(sql.text, arguments, until: .now + .seconds(10))
            }
        }
    }
}
