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
///   `/admin/checkpoint` answer 400 saying why dqlite cannot: see docs/cluster.md), and the writes a node receives
///   while its previous group is in flight share one leader transaction (group commit, one Raft entry per group).
///
/// The endpoints do not look at it: they are written once over ``Storage`` and ``WriteSession``. It decides where
/// a request runs (the dispatch sends every cluster request but the grouped writes and the batched `/query` reads
/// to a handler thread) and which ``WriteSession`` a write gets (``SQLiteService/performWrite(_:_:)``).
public enum StorageBackend: Sendable {
    case local(DatabasePool)
    case cluster(ClusterStorage)

    /// Whether the statements run on a dqlite cluster.
    var isCluster: Bool {
        if case .cluster = self { return true }
        return false
    }
}
