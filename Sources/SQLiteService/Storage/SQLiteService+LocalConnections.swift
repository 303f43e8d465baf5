import SQLiteEngine

extension SQLiteService {
    /// Runs `body` on a reader connection, in one read transaction unless `isolation` says otherwise; statement
    /// cache lookups are added to `metrics`.
    func onReader<T>(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation = .snapshot,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        do {
            return try pool.read(isolation: isolation) { db in try countingStatementCache(db, metrics: metrics, body) }
        } catch {
            throw APIError(error, db: nil)
        }
    }

    /// Runs `body` on a reader connection if one is free now, for the event loop; nil when none is free or when
    /// `body` gives up (returns nil).
    ///
    /// SQLite's busy handler would sleep on the event loop, so the reader's busy timeout is 0 meanwhile: a busy
    /// reader fails with `SQLITE_BUSY` at once, and the caller hands the request to ``handle(_:)``, which waits.
    /// Statement cache lookups are added to `metrics` only when `body` answers (a result or a client error), so
    /// that a request given up here and answered by ``handle(_:)`` is counted once.
    func tryOnReader<T>(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation,
        _ body: (Database) throws(APIError) -> T?
    ) throws(APIError) -> T? {
        do {
            let result = try pool.tryRead(isolation: isolation) { db throws(APIError) -> T? in
                try db.withoutBusyWait { () throws(APIError) -> T? in
                    let before = db.statementCacheStatistics
                    let record = {
                        let after = db.statementCacheStatistics
                        metrics?.recordStatementCache(
                            hits: after.hits - before.hits,
                            misses: after.misses - before.misses
                        )
                    }
                    do throws(APIError) {
                        guard let result = try body(db) else { return nil }
                        record()
                        return result
                    } catch {
                        // A server-side failure is given up too (the caller lets handle() answer it).
                        if error.status < 500 { record() }
                        throw error
                    }
                }
            }
            return result ?? nil
        } catch {
            throw APIError(error, db: nil)
        }
    }

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
            return try pool.write { db in
                defer {
                    if db.isInTransaction {
                        logger.warning("rolling back a transaction a request left open")
                        try? db.rollback()
                    }
                }
                return try countingStatementCache(db, metrics: metrics, body)
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
