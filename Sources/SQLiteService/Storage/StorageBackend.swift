public import SQLiteEngine

/// Where the service's statements run: the seam between the endpoints and the database (issue #15).
///
/// Every endpoint reaches the database through a few doors: a read (`POST /query`, the GET endpoints), a prepared
/// write (`/update`, `/batch`, `/transaction`, the Tables API's writes, through the group committer), and the
/// maintenance and backup paths. The backend decides what is behind them:
///
/// - ``local(_:)``, the default: one `DatabasePool` on this machine, every endpoint served as before.
/// - ``cluster(_:)``: a dqlite cluster through its leader (``ClusterStorage``). The same decoded requests run as
///   the same statements through the wire protocol; every endpoint is served (`/admin/vacuum` and
///   `/admin/checkpoint` answer 400 saying why dqlite cannot: see docs/cluster.md), and group commit is off (each
///   Raft round is its own group).
///
/// Where an endpoint chooses between the two: the route table's handlers (`SQLiteService+StorageHandlers.swift`),
/// the backup writer and the cursor codec; the dispatch sends every cluster request to a handler thread.
public enum StorageBackend: Sendable {
    case local(DatabasePool)
    case cluster(ClusterStorage)
}
