import SQLiteEngine

extension SQLiteService {
    /// ``onWriter(metrics:deadline:bytes:_:)`` with group commit: `body` runs in the next group, in a savepoint of
    /// its own, and this returns only once the group's `COMMIT` (its fsync) is over — or with the request's error.
    func onWriterInGroup<T>(
        metrics: ServiceMetrics?,
        deadline: ContinuousClock.Instant?,
        bytes: Int,
        options: GroupCommitOptions,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        var outcome: Result<T, APIError>?
        withoutActuallyEscaping(body) { body in
            let ticket = GroupTicket(
                bytes: bytes,
                deadline: deadline,
                run: { db in
                    do throws(APIError) {
                        let value = try db.committingAlone { () throws(APIError) -> T in
                            try self.countingStatementCache(db, metrics: metrics, body)
                        }
                        outcome = .success(value)
                        return true
                    } catch {
                        outcome = .failure(error)
                        return false
                    }
                },
                fail: { error in outcome = .failure(error) }
            )
            groupCommitter.submit(ticket, pool: pool, options: options, metrics: metrics, logger: logger)
            ticket.finish()
        }
        guard let outcome else { throw .internal("the write request was not run") }
        return try outcome.get()
    }
}
