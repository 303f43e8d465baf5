import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// ``onWriter(metrics:deadline:bytes:_:)`` with group commit: `body` runs in the next group, in a savepoint of
    /// its own, and this returns only once the group's `COMMIT` (its fsync) is over — or with the request's error.
    func onWriterInGroup<T>(
        metrics: ServiceMetrics?,
        deadline: ContinuousClock.Instant?,
        bytes: Int,
        isOneTransaction: Bool,
        options: GroupCommitOptions,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        try groupCommitter.perform(
            writer: LocalGroupWriter(pool: pool),
            bytes: bytes,
            deadline: deadline,
            isOneTransaction: isOneTransaction,
            writerWaitLimit: ContinuousClock.now + settings.limits.writerWaitTimeout,
            options: options,
            metrics: metrics,
            logger: logger
        ) { (db) throws(APIError) -> T in
            try db.committingAlone { () throws(APIError) -> T in
                try Self.countingStatementCache(db, metrics: metrics, body)
            }
        }
    }
}

extension SQLiteService {
    /// ``onWriterInGroup(metrics:deadline:bytes:options:_:)`` without a thread waiting: `write` runs in the next
    /// group, in a savepoint of its own, and `completion` gets its response (or error) once the group's `COMMIT`
    /// (its fsync) is over — called by the thread that led the group.
    func onWriterInGroupDeferred(
        _ write: PreparedWrite,
        metrics: ServiceMetrics?,
        options: GroupCommitOptions,
        completion: @escaping (Result<HTTPResponse, APIError>) -> Void
    ) {
        // Touched only by the group's leader (see GroupTicket).
        final class Outcome {
            var value: Result<HTTPResponse, APIError>?
        }
        let outcome = Outcome()
        let ticket = GroupTicket<Database>(
            bytes: write.bytes,
            deadline: write.deadline,
            isOneTransaction: write.isOneTransaction,
            writerWaitLimit: .now + settings.limits.writerWaitTimeout,
            run: { db in
                do throws(APIError) {
                    let response = try db.committingAlone { () throws(APIError) -> HTTPResponse in
                        try Self.countingStatementCache(db, metrics: metrics, write.work)
                    }
                    outcome.value = .success(response)
                    return true
                } catch {
                    outcome.value = .failure(error)
                    return false
                }
            },
            fail: { error in outcome.value = .failure(error) },
            onComplete: { completion(outcome.value ?? .failure(.internal("the write request was not run"))) }
        )
        groupCommitter.submitDeferred(
            ticket,
            writer: LocalGroupWriter(pool: pool),
            options: options,
            metrics: metrics,
            logger: logger
        )
    }
}
