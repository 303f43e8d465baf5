import HTTPServer
import Logging

extension ClusterStorage {
    /// Runs `write` in this node's next group (``GroupCommitter`` over ``ClusterGroupWriter``): the writes that
    /// arrive while the previous group is in flight share one leader transaction, each in a savepoint of its own,
    /// and this returns once the group's `COMMIT` (one Raft entry, on a majority) is answered, or with the
    /// request's error. A lone write runs as a single write in autocommit mode.
    func runInGroup(
        _ write: StorageWrite,
        options: GroupCommitOptions,
        metrics: ServiceMetrics?,
        logger: Logger
    ) throws(APIError) -> HTTPResponse {
        try groupCommitter.perform(write.groupRequest, in: groupContext(options, metrics, logger)) {
            (unit) throws(APIError) -> HTTPResponse in try Self.run(write, in: unit)
        }
    }

    /// ``runInGroup(_:options:metrics:logger:)`` without a thread waiting: `write` is queued for this node's next
    /// group from the event loop, and `completion` gets its response (or error) once the group's `COMMIT` is
    /// answered — called by the thread that led the group (the committer's own queue: a deferred request never
    /// leads, see ``GroupCommitter``).
    func runInGroupDeferred(
        _ write: StorageWrite,
        options: GroupCommitOptions,
        metrics: ServiceMetrics?,
        logger: Logger,
        completion: @escaping (Result<HTTPResponse, APIError>) -> Void
    ) {
        groupCommitter.performDeferred(
            write.groupRequest,
            in: groupContext(options, metrics, logger),
            { (unit) throws(APIError) -> HTTPResponse in try Self.run(write, in: unit) },
            completion: completion
        )
    }

    /// This node's groups on the leader, under `options`, `metrics` and `logger`.
    private func groupContext(
        _ options: GroupCommitOptions,
        _ metrics: ServiceMetrics?,
        _ logger: Logger
    ) -> GroupContext<ClusterGroupWriter> {
        GroupContext(writer: ClusterGroupWriter(storage: self), options: options, metrics: metrics, logger: logger)
    }

    /// One request's run in its group (in a savepoint of its own, or alone when the group is only it).
    private static func run(_ write: StorageWrite, in unit: ClusterGroupTransaction) throws(APIError) -> HTTPResponse {
        try unit.committingAlone(deadline: write.deadline, isOneStatement: write.isOneStatement) {
            (session) throws(APIError) -> HTTPResponse in try write.body(session)
        }
    }
}

extension StorageWrite {
    /// The write as the group committer sees it (the leader has no writer gate to wait at: no writer wait limit).
    var groupRequest: GroupRequest {
        GroupRequest(bytes: bytes, deadline: deadline, isOneTransaction: isOneTransaction)
    }
}
