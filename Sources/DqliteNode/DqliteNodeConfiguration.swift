/// How a ``DqliteNode`` is created: its identity in the cluster, where it listens, where it keeps its Raft data.
public struct DqliteNodeConfiguration: Sendable, Hashable {
    /// The node's Raft id: positive, unique in the cluster, the same on every restart.
    ///
    /// A node created with id 1 bootstraps a new one-voter cluster at its first start (dqlite's `maybeBootstrap`:
    /// ids 1 and `0x2dc171858c3155be`); any other id starts empty and waits to be added by the leader
    /// (wire requests ADD, then ASSIGN).
    public var id: UInt64
    /// The address the other nodes and clients use to reach this node, `"<IPv4>:<port>"`.
    ///
    /// It is stored in the Raft configuration; LEADER and CLUSTER answer with it.
    public var address: String
    /// The address the node listens on; `nil` binds ``address``.
    ///
    /// dqlite 1.11 parses `"<IPv4>:<port>"` (IPv4 only, no names) or `"@<name>"` (Linux abstract socket).
    public var bindAddress: String?
    /// The directory for the Raft log and snapshots; it must exist. dqlite 1.11 keeps the database pages in memory.
    public var dataDirectory: String
    /// The average one-way network latency (`dqlite_node_set_network_latency_ms`); `nil` keeps dqlite's default
    /// (heartbeat 500 ms, election timeout 3 s). The heartbeat becomes 1.5 × latency, the election timeout 15 ×.
    public var networkLatencyMilliseconds: UInt32?

    public init(
        id: UInt64,
        address: String,
        bindAddress: String? = nil,
        dataDirectory: String,
        networkLatencyMilliseconds: UInt32? = nil
    ) {
        self.id = id
        self.address = address
        self.bindAddress = bindAddress
        self.dataDirectory = dataDirectory
        self.networkLatencyMilliseconds = networkLatencyMilliseconds
    }
}
