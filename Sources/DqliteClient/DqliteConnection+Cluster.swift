/// Membership and maintenance requests. ADD, ASSIGN, REMOVE and TRANSFER must be sent to the leader.
extension DqliteConnection {
    /// CLUSTER: the members of the cluster as this node's Raft configuration lists them.
    public func cluster() throws(DqliteError) -> [DqliteNodeInfo] {
        try call(.cluster) { response in
            guard case .servers(let nodes) = response else { return nil }
            return nodes
        }
    }

    /// ADD: adds the node `id` at `address` to the cluster as a spare; returns once the configuration change is
    /// committed. Promote it with ``assign(id:role:)``.
    public func add(id: UInt64, address: String) throws(DqliteError) {
        try expectEmpty(.add(id: id, address: address))
    }

    /// ASSIGN: gives the node `id` a role; for `.voter` the leader first brings the node's log up to date.
    public func assign(id: UInt64, role: DqliteRole) throws(DqliteError) {
        try expectEmpty(.assign(id: id, role: role))
    }

    /// REMOVE: removes the node `id` from the cluster.
    public func remove(id: UInt64) throws(DqliteError) {
        try expectEmpty(.remove(id: id))
    }

    /// TRANSFER: hands leadership to the voter `id`; returns once this node is no longer the leader.
    public func transfer(to id: UInt64) throws(DqliteError) {
        try expectEmpty(.transfer(id: id))
    }

    /// DUMP: the database `name` as files: the main database file, then its WAL (`<name>-wal`).
    ///
    /// The answer is one message holding both files whole: ``DqliteLimits/maxMessageBytes`` bounds the size of a
    /// database that can be dumped.
    public func dump(_ name: String) throws(DqliteError) -> [DqliteFile] {
        try call(.dump(name: name)) { response in
            guard case .files(let files) = response else { return nil }
            return files
        }
    }

    private func expectEmpty(_ request: DqliteRequest) throws(DqliteError) {
        try call(request) { response -> Void? in
            guard case .empty = response else { return nil }
            return ()
        }
    }
}
