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
            try unit.committingAlone(deadline: write.deadline, isOneStatement: write.isOneStatement) {
                (session) throws(APIError) -> HTTPResponse in try write.body(session)
            }
        }
    }
}
