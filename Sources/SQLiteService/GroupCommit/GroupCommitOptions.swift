/// How writes are grouped into one transaction (config `database.group_commit.*`).
///
/// Requests that reach the writer while it is busy (its previous commit's fsync included) form the next group: one
/// `BEGIN IMMEDIATE`, each request in its own savepoint, one `COMMIT` (one WAL fsync), and only then every response
/// of the group. A lone request on an idle writer forms a group of one at once: there is no timer.
public struct GroupCommitOptions: Sendable, Equatable {
    /// Whether writes are grouped; false runs each write request in autocommit mode on its own, as before.
    public var isEnabled = true
    /// The most requests in one group.
    public var maxRequests = 256
    /// The most request body bytes in one group (a request larger than this still forms a group of its own).
    ///
    /// 16 MiB: at most one default-sized maximal body (`max_body_bytes`) per group, and far more than 256 small
    /// writes, so it binds only when large bodies would make one group hold the writer for long.
    public var maxBytes = 16 << 20

    public init() {}
}
