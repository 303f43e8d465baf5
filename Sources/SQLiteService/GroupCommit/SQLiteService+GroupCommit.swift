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
        let request = GroupRequest(
            bytes: bytes,
            deadline: deadline,
            isOneTransaction: isOneTransaction,
            writerWaitLimit: .now + settings.limits.writerWaitTimeout
        )
        return try groupCommitter.perform(request, in: localGroupContext(options, metrics)) {
            (db) throws(APIError) -> T in
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
        let request = GroupRequest(
            bytes: write.bytes,
            deadline: write.deadline,
            isOneTransaction: write.isOneTransaction,
            writerWaitLimit: .now + settings.limits.writerWaitTimeout
        )
        groupCommitter.performDeferred(
            request,
            in: localGroupContext(options, metrics),
            { (db) throws(APIError) -> HTTPResponse in
                try db.committingAlone { () throws(APIError) -> HTTPResponse in
                    try Self.countingStatementCache(db, metrics: metrics, write.work)
                }
            },
            completion: completion
        )
    }
}

extension SQLiteService {
    /// The local writer's groups, under `options` and `metrics`.
    private func localGroupContext(
        _ options: GroupCommitOptions,
        _ metrics: ServiceMetrics?
    ) -> GroupContext<LocalGroupWriter> {
        GroupContext(writer: LocalGroupWriter(pool: pool), options: options, metrics: metrics, logger: logger)
    }
}
