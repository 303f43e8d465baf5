public import DqliteClient

/// The cluster as one member sees it: the members with their roles (CLUSTER), the leader it knows (LEADER) and its
/// own id.
public struct ClusterInfo: Sendable, Hashable {
    /// The id of the member that answered.
    public var nodeID: UInt64
    /// The leader's id, or `nil` when the member knows no leader (an election is under way).
    public var leaderID: UInt64?
    /// The leader's address, or `nil` when the member knows no leader.
    public var leaderAddress: String?
    /// The members of the Raft configuration, by increasing id.
    public var nodes: [DqliteNodeInfo]

    public init(nodeID: UInt64, leaderID: UInt64?, leaderAddress: String?, nodes: [DqliteNodeInfo]) {
        self.nodeID = nodeID
        self.leaderID = leaderID
        self.leaderAddress = leaderAddress
        self.nodes = nodes.sorted { $0.id < $1.id }
    }

    /// The members that vote.
    public var voters: [DqliteNodeInfo] {
        nodes.filter { $0.role == .voter }
    }
}
