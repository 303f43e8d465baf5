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
        try groupCommitter.perform(
            writer: ClusterGroupWriter(storage: self),
            bytes: write.bytes,
            deadline: write.deadline,
            isOneTransaction: write.isOneTransaction,
            options: options,
            metrics: metrics,
            logger: logger
        ) { (unit) throws(APIError) -> HTTPResponse in
            try Self.run(write, in: unit)
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
            writer: ClusterGroupWriter(storage: self),
            bytes: write.bytes,
            deadline: write.deadline,
            isOneTransaction: write.isOneTransaction,
            options: options,
            metrics: metrics,
            logger: logger,
            { (unit) throws(APIError) -> HTTPResponse in try Self.run(write, in: unit) },
            completion: completion
        )
    }

    /// One request's run in its group (in a savepoint of its own, or alone when the group is only it).
    private static func run(_ write: StorageWrite, in unit: ClusterGroupTransaction) throws(APIError) -> HTTPResponse {
        try unit.committingAlone(deadline: write.deadline, isOneStatement: write.isOneStatement) {
            (session) throws(APIError) -> HTTPResponse in try write.body(session)
        }
    }
}
