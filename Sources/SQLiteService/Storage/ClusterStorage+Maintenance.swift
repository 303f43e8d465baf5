import DqliteCluster

/// `POST /admin/*` on the cluster backend, run on the leader where dqlite lets it happen, and a 400 that says why
/// where it does not.
///
/// - `optimize` with `{"analyze": true}` runs `ANALYZE` on the leader (a replicated write): `{"analyzed": true}`.
///   Without it, it is 400: `PRAGMA optimize` acts on one connection's statistics, and the leader's connections
///   belong to dqlite (the SQL policy there refuses the pragma).
/// - `vacuum` and `checkpoint` are 400 `INVALID_REQUEST`: dqlite replicates the database page by page and keeps
///   its own write-ahead log, which every node checkpoints itself past a threshold; neither can be asked for over
///   the wire protocol.
extension ClusterStorage {
    func maintenance(_ request: MaintenanceRequest, metrics: ServiceMetrics?) throws(APIError) -> [UInt8] {
        switch request {
        case .vacuum:
            throw .invalidRequest(
                "VACUUM is not available in cluster mode: dqlite replicates the database page by page and cannot "
                    + "rewrite it in place"
            )
        case .checkpoint:
            throw .invalidRequest(
                "a checkpoint cannot be asked for in cluster mode: every dqlite node checkpoints its own write-ahead "
                    + "log past a threshold"
            )
        case .optimize(analyze: false):
            throw .invalidRequest(
                #"PRAGMA optimize is not available in cluster mode (the leader's connections are dqlite's): send "#
                    + #"{"analyze": true} to run ANALYZE on the leader"#
            )
        case .optimize(analyze: true):
            do {
                _ = try writer.exec("ANALYZE")
            } catch {
                throw APIError(cluster: error, isWrite: true)
            }
            return Array(#"{"analyzed":true}"#.utf8)
        }
    }
}
