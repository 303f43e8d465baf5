import SQLiteEngine
import Synchronization

/// A write interactive transaction on the local writer: held under a ``WriterLease`` from its `BEGIN` to its end,
/// so no group commit or other write runs meanwhile (they wait, each until its own limit). Every request runs in a
/// savepoint of its own on the writer's queue.
final class LocalWriteTransaction: TransactionHandle {
    private let lease: WriterLease
    private let metrics: ServiceMetrics?
    private let open = Atomic<Bool>(true)

    /// Takes the writer (waiting until `waitLimit` at most) and begins the transaction in `mode`.
    ///
    /// - Throws: 503 `SQLITE_BUSY` when the writer is not had in time; the `BEGIN`'s error.
    init(
        pool: DatabasePool,
        mode: TransactionRequest.Mode,
        waitLimit: ContinuousClock.Instant,
        metrics: ServiceMetrics?
    ) throws(APIError) {
        do {
            lease = try pool.leaseWriter(waitingUntil: waitLimit)
        } catch {
            metrics?.transactions.waitsBusy.increment()
            throw APIError(error, db: nil)
        }
        if lease.waited { metrics?.transactions.waitsGranted.increment() }
        self.metrics = metrics
        do {
            try lease.run { db in try db.beginTransaction(mode.engineKind) }
        } catch {
            lease.release()
            throw APIError(error, db: nil)
        }
    }

    var isReadOnly: Bool { false }

    var isOpen: Bool { open.load(ordering: .acquiring) }

    func perform<T>(
        until deadline: ContinuousClock.Instant,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        try onWriter { db throws(APIError) in
            try db.withRequestDeadline(deadline) { () throws(APIError) -> T in
                try SQLiteService.countingStatementCache(db, metrics: metrics) { db throws(APIError) in
                    // Deferred foreign keys are left to the transaction's `COMMIT`.
                    try db.inRequestSavepoint(checkingDeferredForeignKeys: false) { () throws(APIError) in
                        try body(LocalWriteSession(db))
                    }
                }
            }
        }
    }

    func commit(
        until deadline: ContinuousClock.Instant,
        _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
    ) throws(APIError) -> WriteAnswer {
        let answer = try onWriter { db throws(APIError) in
            // A failure here (a key reused, 422) leaves the transaction open, as it was: nothing was committed.
            let answer = try db.withRequestDeadline(deadline) { () throws(APIError) in
                try beforeCommit(LocalWriteSession(db))
            }
            guard db.isInTransaction else { throw APIError.transactionLost }
            do throws(APIError) {
                // synchronous=FULL: the COMMIT returns once the WAL is on disk.
                try db.commitOrRollBack()
            } catch {
                open.store(false, ordering: .releasing)
                throw error
            }
            open.store(false, ordering: .releasing)
            return answer
        }
        rollback()
        return answer
    }

    func rollback() {
        open.store(false, ordering: .releasing)
        lease.release()
    }

    /// Runs `body` on the leased writer; marks the transaction closed when SQLite ended it meanwhile (the lease is
    /// then given back by the registry, ``rollback()``).
    private func onWriter<T>(_ body: (Database) throws(APIError) -> T) throws(APIError) -> T {
        guard isOpen else { throw APIError.transactionLost }
        var outcome: Result<T, APIError>?
        do {
            try lease.run { db in
                do throws(APIError) {
                    outcome = .success(try body(db))
                } catch {
                    outcome = .failure(error)
                }
                if !db.isInTransaction { open.store(false, ordering: .releasing) }
            }
        } catch {
            outcome = .failure(APIError(error, db: nil))
        }
        guard let outcome else { throw .internal("the transaction's request was not run") }
        return try outcome.get()
    }
}
