/// A member of the cluster as CLUSTER lists it: id, address and role.
public struct DqliteNodeInfo: Sendable, Hashable {
    public var id: UInt64
    public var address: String
    public var role: DqliteRole

    public init(id: UInt64, address: String, role: DqliteRole) {
        self.id = id
        self.address = address
        self.role = role
    }
}

/// A member's role (dqlite's `DQLITE_VOTER`, `DQLITE_STANDBY`, `DQLITE_SPARE`).
///
/// Voters elect the leader and count for the quorum; stand-bys replicate the log without voting; spares only
/// belong to the configuration. ADD makes a node a spare; ASSIGN changes its role.
public enum DqliteRole: UInt64, Sendable, Hashable {
    case voter = 0
    case standBy = 1
    case spare = 2
}
