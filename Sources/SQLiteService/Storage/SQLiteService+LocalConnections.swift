import SQLiteEngine

extension SQLiteService {
    /// Runs `body` on the writer; whatever happens, the writer is back in
    /// autocommit mode afterwards (no request may leave a transaction open).
    ///
    /// With group commit on (see ``GroupCommitOptions``) `body` runs inside the next group's transaction, in a
    /// savepoint of its own (`db.isInTransaction` is then true), and this returns after the group's `COMMIT`; a
    /// request past `deadline` before its turn fails with `TIMEOUT` without running; `bytes` (the request body's
    /// size) counts against the group's `max_bytes`.
    func onWriter<T>(
        metrics: ServiceMetrics?,
        deadline: ContinuousClock.Instant? = nil,
        bytes: Int = 0,
        isOneTransaction: Bool = false,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        let groupCommit = settings.options.groupCommit
        if groupCommit.isEnabled {
            return try onWriterInGroup(
                metrics: metrics,
                deadline: deadline,
                bytes: bytes,
                isOneTransaction: isOneTransaction,
                options: groupCommit,
                body
            )
        }
        do {
            return try pool.write(waitingUntil: .now + settings.limits.writerWaitTimeout) { db in
                defer {
                    if db.isInTransaction {
                        logger.warning("rolling back a transaction a request left open")
                        try? db.rollback()
                    }
                }
                return try Self.countingStatementCache(db, metrics: metrics, body)
            }
        } catch {
            throw APIError(error, db: nil)
        }
    }
}

extension Database {
    /// `withDeadline` with the body's typed error preserved.
    func withRequestDeadline<T>(
        _ deadline: ContinuousClock.Instant,
        _ body: () throws(APIError) -> T
    ) throws(APIError) -> T {
        do {
            return try withDeadline(deadline) { () throws -> T in try body() }
        } catch {
            throw APIError(error, db: self)
        }
    }
}
