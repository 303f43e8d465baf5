public import DqliteClient

/// How a ``ClusterMember`` runs its node and joins the cluster.
public struct ClusterMemberConfiguration: Sendable, Hashable {
    /// The node's Raft id: positive, unique in the cluster, the same on every restart. Id 1 bootstraps a new
    /// cluster on its first start (dqlite does this itself), so it never joins one.
    public var id: UInt64
    /// The address the other members and the clients use to reach this node, `"<IPv4>:<port>"`.
    public var address: String
    /// The address the node listens on; `nil` binds ``address``.
    public var bindAddress: String?
    /// The directory of the node's Raft log and snapshots; it must exist.
    public var dataDirectory: String
    /// Addresses of existing members, asked for the leader when this node joins. Used only on the first start
    /// (no membership recorded in ``dataDirectory``).
    public var join: [String]
    /// dqlite's network latency (`dqlite_node_set_network_latency_ms`); `nil` keeps dqlite's default (heartbeat
    /// 500 ms, election timeout 3 s).
    public var networkLatencyMilliseconds: UInt32?
    /// The longest ``ClusterMember/start()`` waits for a leader to add this node.
    public var joinTimeout: Duration
    /// The longest ``ClusterMember/leave(remove:)`` spends on its transfer and removal before it stops the node.
    public var leaveTimeout: Duration
    /// Deadlines of the connections used for membership requests.
    public var connectionOptions: DqliteConnection.Options

    public init(
        id: UInt64,
        address: String,
        bindAddress: String? = nil,
        dataDirectory: String,
        join: [String] = [],
        networkLatencyMilliseconds: UInt32? = nil,
        joinTimeout: Duration = .seconds(30),
        leaveTimeout: Duration = .seconds(10),
        connectionOptions: DqliteConnection.Options = DqliteConnection.Options(
            connectTimeout: .seconds(2),
            requestTimeout: .seconds(10)
        )
    ) {
        self.id = id
        self.address = address
        self.bindAddress = bindAddress
        self.dataDirectory = dataDirectory
        self.join = join
        self.networkLatencyMilliseconds = networkLatencyMilliseconds
        self.joinTimeout = joinTimeout
        self.leaveTimeout = leaveTimeout
        self.connectionOptions = connectionOptions
    }
}
