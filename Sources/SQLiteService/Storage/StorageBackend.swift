public import SQLiteEngine

/// Where the service's statements run: the seam between the endpoints and the database (issue #15).
///
/// Every endpoint reaches the database through a few doors: a read (`POST /query`, the GET endpoints), a prepared
/// write (`/update`, `/batch`, `/transaction`, the Tables API's writes, through the group committer), and the
/// maintenance and backup paths. The backend decides what is behind them:
///
/// - ``local(_:)``, the default: one `DatabasePool` on this machine, every endpoint served as before.
/// - ``cluster(_:)``: a dqlite cluster through its leader (``ClusterStorage``). The same decoded requests run as
///   the same statements through the wire protocol; `/query`, `/update`, `/batch`, `/transaction`, `/schema`,
///   `/backup` (DUMP), `/health`, `/metrics`, `GET /cluster` and the Tables API's reads are served, its writes and
///   `/admin/*` answer 501 `NOT_IMPLEMENTED` (see the README's cluster mode section), and group commit is off (each
///   Raft round is its own group).
public enum StorageBackend: Sendable {
    case local(DatabasePool)
    case cluster(ClusterStorage)
}
