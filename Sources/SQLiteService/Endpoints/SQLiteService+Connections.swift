import SQLiteEngine

extension SQLiteService {
    /// Runs `body` on a reader connection, in one read transaction.
    func onReader<T>(_ body: (Database) throws(APIError) -> T) throws(APIError) -> T {
        do {
            return try pool.read { db in try countingStatementCache(db, body) }
        } catch {
            throw APIError(error, db: nil)
        }
    }

    /// Runs `body` on the writer; whatever happens, the writer is back in
    /// autocommit mode afterwards (no request may leave a transaction open).
    func onWriter<T>(_ body: (Database) throws(APIError) -> T) throws(APIError) -> T {
        do {
            return try pool.write { db in
                defer {
                    if db.isInTransaction {
                        logger.warning("rolling back a transaction a request left open")
                        try? db.rollback()
                    }
                }
                return try countingStatementCache(db, body)
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
