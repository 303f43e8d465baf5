import DqliteClient

/// The checks before a node is added to the configuration, shared by a node joining (``ClusterMember``) and an
/// operator adding one (``ClusterAdministrator``), so that both refuse the same conflicts.
enum MembershipCheck {
    /// The entry of `id` in `nodes` (the leader's configuration), nil when it is not a member yet.
    ///
    /// - Throws: ``ClusterError`` `.invalidConfiguration` when `id` is a member at another address, or `address`
    ///   belongs to another node.
    static func existingMember(
        id: UInt64,
        address: String,
        in nodes: [DqliteNodeInfo]
    ) throws(ClusterError) -> DqliteNodeInfo? {
        let member = nodes.first { $0.id == id }
        if let member, member.address != address {
            throw ClusterError(
                kind: .invalidConfiguration,
                message: "node \(id) is a member at \(member.address), not at \(address)"
            )
        }
        if let holder = nodes.first(where: { $0.address == address && $0.id != id }) {
            throw ClusterError(
                kind: .invalidConfiguration,
                message: "the address \(address) belongs to node \(holder.id)"
            )
        }
        return member
    }
}
