import HTTPServer
import SQLiteEngine

/// The bodies of a transaction's end.
enum TransactionBodies {
    static let committed: [UInt8] = Array(#"{"committed":true}"#.utf8)
    static let rolledBack: [UInt8] = Array(#"{"rolled_back":true}"#.utf8)
}

/// `/transactions` (API.md, "Interactive transactions"), written once for both storages over ``TransactionHandle``
/// (``Storage/openTransaction(_:limits:metrics:)``) and ``TransactionRegistry``.
extension SQLiteService {
    /// `POST /transactions`: opens a transaction → 201 `{"id", "mode", "idle_timeout_ms"}` with `Location`.
    func openTransactionResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        let open = try RequestDecoder().decodeTransactionOpen(request.body)
        let token = try transactionScope(request, settings, writes: open.mode != .readOnly)
        let limits = settings.limits
        let metrics = settings.options.metrics
        if transactions.isClosing { throw .unavailable("the server is shutting down", retryAfter: 1) }
        let isReadOnly = open.mode == .readOnly
        if isReadOnly, !transactions.reserveReader(limit: limits.maxReadTransactions) {
            throw .tooManyTransactions(max(1, limits.maxReadTransactions))
        }
        let handle: any TransactionHandle
        do {
            handle = try store.openTransaction(open.mode, limits: limits, metrics: metrics)
        } catch {
            if isReadOnly { transactions.cancelReader() }
            throw error
        }
        let requested: Duration = open.idleTimeoutMs.map { .milliseconds($0) } ?? Self.defaultTransactionIdleTimeout
        let idleTimeout = min(requested, limits.transactionIdleTimeout)
        let id = transactions.register(
            handle,
            token: token,
            idleTimeout: idleTimeout,
            maxLifetime: limits.transactionMaxLifetime
        )
        metrics?.transactions.recordOpen(transactions.counts)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.writeString(id)
        writer.key("mode")
        writer.writeString(open.mode.rawValue)
        writer.key("idle_timeout_ms")
        writer.writeInt64(Int64(Self.milliseconds(idleTimeout)))
        writer.endObject()
        return Self.jsonResponse(status: 201, writer.bytes, headers: [("Location", "/transactions/\(id)")])
    }

    /// `POST /transactions/{id}`: a statement object → a result object, or `{"statements": [...]}` →
    /// `{"results": [...]}`, in the request's own savepoint. A failure undoes this request's statements only and
    /// says whether the transaction is still open (`transaction_open`).
    func transactionStepResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        let token = try transactionScope(request, settings, writes: false)
        // Decoded before the transaction is taken: a malformed body changes nothing.
        let step = try RequestDecoder().decodeTransactionStep(request.body)
        let limits = settings.limits
        guard step.statements.count <= limits.maxStatements else {
            throw .invalidRequest("statements holds more than \(limits.maxStatements) statements")
        }
        let id = request.transactionID
        let handle = try transactions.checkOut(id, token: token)
        defer { checkIn(id, metrics: settings.options.metrics) }
        var context = RequestContext(
            options: step.options,
            limits: limits,
            allowsSavepoints: !handle.isReadOnly,
            requiresReadOnly: handle.isReadOnly
        )
        do throws(APIError) {
            let body = try handle.perform(until: context.deadline) { session throws(APIError) in
                try session.runStatements(step.statements, asList: step.isList, context: &context)
            }
            return Self.jsonResponse(body)
        } catch {
            var error = error
            if handle.isReadOnly, error.code == "READONLY_STATEMENT" {
                error.message = "the statement would modify the database: the transaction is read_only"
            }
            // A failure outside any statement (the step's savepoint) is the step's first statement's.
            error.statementIndex = error.statementIndex ?? 0
            error.transactionOpen = handle.isOpen
            if !handle.isOpen {
                // SQLite rolled the whole transaction back (an interrupted write), or the leader was lost.
                error.rolledBack = true
                settings.options.metrics?.transactions.rolledBack.increment()
            }
            throw error
        }
    }

    /// `POST /transactions/{id}/commit` → `{"committed": true}` once durable. With an `Idempotency-Key` its answer
    /// is stored in the transaction itself, so a retry after a lost answer finds it (the ID is gone by then).
    func commitTransactionResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse
    {
        let token = try transactionScope(request, settings, writes: false)
        let key = try IdempotencyKey(request, tokenName: token)
        try RequestDecoder().decodeEmptyBody(request.body)
        let id = request.transactionID
        let metrics = settings.options.metrics
        let deadline = ContinuousClock.now + settings.limits.statementTimeout
        guard let key else {
            let handle = try transactions.checkOut(id, token: token)
            defer { checkIn(id, metrics: metrics) }
            return try commit(handle, until: deadline, metrics: metrics) { _ throws(APIError) in
                WriteAnswer(response: Self.jsonResponse(TransactionBodies.committed), keepsChanges: true)
            }
        }
        let (claim, keyed) = try claimKey(key, of: request, settings: settings)
        defer { claim.release() }
        let handle: any TransactionHandle
        do {
            handle = try transactions.checkOut(id, token: token)
        } catch  where error.status == 404 {
            // Committed already, its answer lost? The stored answer if there is one, else the 404.
            let missing = StorageWrite(deadline: deadline, bytes: 0) { _ throws(APIError) -> HTTPResponse in throw error
            }
            let lookup = StorageWrite(deadline: deadline, bytes: request.body.count) { session throws(APIError) in
                try keyed.run(missing, on: session)
            }
            return try performWrite(lookup, settings)
        }
        defer { checkIn(id, metrics: metrics) }
        if handle.isReadOnly {
            // Nothing to keep: the key stays free.
            return try commit(handle, until: deadline, metrics: metrics) { _ throws(APIError) in
                WriteAnswer(response: Self.jsonResponse(TransactionBodies.committed), keepsChanges: false)
            }
        }
        let committed = StorageWrite(deadline: deadline, bytes: request.body.count) { _ throws(APIError) in
            Self.jsonResponse(TransactionBodies.committed)
        }
        return try commit(handle, until: deadline, metrics: metrics) { session throws(APIError) in
            try keyed.run(committed, on: session)
        }
    }

    /// `POST /transactions/{id}/rollback` and `DELETE /transactions/{id}` → `{"rolled_back": true}`.
    func rollbackTransactionResponse(
        _ request: HTTPRequest,
        _ settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse {
        let token = try transactionScope(request, settings, writes: false)
        try RequestDecoder().decodeEmptyBody(request.body)
        let id = request.transactionID
        let handle = try transactions.checkOut(id, token: token)
        handle.rollback()
        settings.options.metrics?.transactions.rolledBack.increment()
        checkIn(id, metrics: settings.options.metrics)
        return Self.jsonResponse(TransactionBodies.rolledBack)
    }

    /// Commits `handle`, counting the outcome: over once committed or once its `COMMIT` failed; still open when
    /// what runs before the `COMMIT` failed (a key reused: 422).
    private func commit(
        _ handle: any TransactionHandle,
        until deadline: ContinuousClock.Instant,
        metrics: ServiceMetrics?,
        _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
    ) throws(APIError) -> HTTPResponse {
        do {
            let answer = try handle.commit(until: deadline, beforeCommit)
            metrics?.transactions.committed.increment()
            return answer.response
        } catch {
            var error = error
            error.transactionOpen = handle.isOpen
            if !handle.isOpen {
                handle.rollback()
                metrics?.transactions.rolledBack.increment()
                if error.rolledBack == nil, error.code != "UNAVAILABLE" { error.rolledBack = true }
            }
            throw error
        }
    }

    /// Gives transaction `id` back to the registry after a request (forgotten when it ended), and records how
    /// many are open.
    private func checkIn(_ id: String, metrics: ServiceMetrics?) {
        transactions.checkIn(id)
        metrics?.transactions.recordOpen(transactions.counts)
    }

    /// The scope of a request's transactions: its token's name (nil without tokens). A write transaction needs a
    /// token with the `write` role (the route asks `read`, enough for `read_only`).
    private func transactionScope(
        _ request: HTTPRequest,
        _ settings: ServiceSettings,
        writes: Bool
    ) throws(APIError) -> String? {
        guard let store = settings.tokens else { return nil }
        guard let field = request.headers["authorization"], let token = Self.bearerToken(field),
            let entry = store.authenticate(token: token)
        else { throw .unauthorized("unknown token") }
        if writes, !entry.role.grants(.write) {
            throw .forbidden(
                "the token's role (\(entry.role.rawValue)) does not grant a write transaction (needs write; "
                    + "read is enough for \"mode\": \"read_only\")"
            )
        }
        return entry.name
    }

    /// The idle timeout of a transaction that asks for none (API.md: 5,000 ms).
    static let defaultTransactionIdleTimeout: Duration = .seconds(5)

    /// A duration in whole milliseconds.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension HTTPRequest {
    /// The `{id}` of `/transactions/{id}`, `/transactions/{id}/commit` and `/transactions/{id}/rollback`.
    var transactionID: String {
        let rest = path.dropFirst("/transactions/".count)
        return String(rest.prefix { $0 != "/" })
    }
}
