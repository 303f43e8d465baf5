import SQLiteEngine
import Synchronization

/// A `read_only` interactive transaction on the local storage: one reader of the pool held from its `BEGIN` to its
/// end (``ReaderLease``), in one read transaction whose snapshot is taken at the open, so every request of it sees
/// the same data while writes commit around it.
final class LocalReadTransaction: TransactionHandle {
    private let lease: ReaderLease
    private let metrics: ServiceMetrics?
    private let open = Atomic<Bool>(true)

    /// Takes a reader (waiting for one as a read does), begins a read transaction and reads, which pins the
    /// snapshot (a deferred `BEGIN` alone takes none).
    init(pool: DatabasePool, metrics: ServiceMetrics?) throws(APIError) {
        do {
            lease = try pool.leaseReader()
        } catch {
            throw APIError(error, db: nil)
        }
        self.metrics = metrics
        do {
            try lease.run { db in
                try db.beginTransaction(.deferred)
                _ = try db.scalar(sql: "SELECT count(*) FROM sqlite_schema")
            }
        } catch {
            lease.release()
            throw APIError(error, db: nil)
        }
    }

    var isReadOnly: Bool { true }

    var isOpen: Bool { open.load(ordering: .acquiring) }

    func perform<T>(
        until deadline: ContinuousClock.Instant,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard isOpen else { throw APIError.transactionLost }
        var outcome: Result<T, APIError>?
        do {
            try lease.run { db in
                do throws(APIError) {
                    outcome = .success(
                        try db.withRequestDeadline(deadline) { () throws(APIError) -> T in
                            try SQLiteService.countingStatementCache(db, metrics: metrics) { db throws(APIError) in
                                try body(LocalWriteSession(db))
                            }
                        }
                    )
                } catch {
                    outcome = .failure(error)
                }
                // An interrupted read ends the read transaction: the snapshot is gone with it.
                if !db.isInTransaction { open.store(false, ordering: .releasing) }
            }
        } catch {
            outcome = .failure(APIError(error, db: nil))
        }
        guard let outcome else { throw .internal("the transaction's request was not run") }
        return try outcome.get()
    }

    /// A read transaction has nothing to commit: it ends, and the reader goes back to the pool.
    func commit(
        until deadline: ContinuousClock.Instant,
        _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
    ) throws(APIError) -> WriteAnswer {
        defer { rollback() }
        guard isOpen else { throw APIError.transactionLost }
        return WriteAnswer(response: SQLiteService.jsonResponse(TransactionBodies.committed), keepsChanges: false)
    }

    func rollback() {
        open.store(false, ordering: .releasing)
        lease.release()
    }
}
