public import DqliteClient

/// An operator's membership requests, sent to the leader found through any members' addresses: list the members,
/// add a node (ADD, then ASSIGN voter), remove one (REMOVE), hand leadership to a voter (TRANSFER). What
/// `sqlited cluster list|add|remove|transfer` runs.
///
/// Each request reads the leader's CLUSTER answer first, so a step that already happened is not repeated (a node
/// already listed is only made a voter) and a request that cannot work is refused with a clear message before
/// anything is sent: an unknown id, an id or address another member holds, removing the leader. Finding the leader
/// and a request the leader refused as a non-leader, or whose connection broke, are tried again until ``timeout``.
public struct ClusterAdministrator: Sendable {
    /// Addresses of members (`"<IP>:<port>"`), asked for the leader; one that answers is enough.
    public var members: [String]
    /// The longest one request spends finding the leader and retrying.
    public var timeout: Duration
    /// Deadlines of each connection.
    public var connectionOptions: DqliteConnection.Options

    public init(
        members: [String],
        timeout: Duration = .seconds(10),
        connectionOptions: DqliteConnection.Options = DqliteConnection.Options(
            connectTimeout: .seconds(2),
            requestTimeout: .seconds(10)
        )
    ) {
        self.members = members
        self.timeout = timeout
        self.connectionOptions = connectionOptions
    }

    /// What ``add(id:address:)`` did.
    public enum AddOutcome: Sendable, Hashable {
        /// The node was added and made a voter.
        case added
        /// The node was listed already, not a voter; it was made one.
        case promoted
        /// The node was a voter already: nothing was sent.
        case alreadyVoter
    }

    /// The members and the leader, as the leader lists them (``ClusterInfo/nodeID`` is the leader's id).
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when no leader answered within ``timeout``.
    public func list() throws(ClusterError) -> ClusterInfo {
        try withLeader { leader, nodes throws(ClusterError) in
            ClusterInfo(nodeID: leader.id, leaderID: leader.id, leaderAddress: leader.address, nodes: nodes)
        }
    }

    /// Adds the node `id` at `address` (it must run, started without join addresses or waiting to be added) and
    /// makes it a voter; the leader brings its log up to date first.
    ///
    /// - Throws: ``ClusterError`` `.invalidConfiguration` when `id` is 0, is a member at another address, or
    ///   another member holds `address`; `.membership` when the leader refused a step; `.unavailable`.
    @discardableResult
    public func add(id: UInt64, address: String) throws(ClusterError) -> AddOutcome {
        guard id > 0 else {
            throw ClusterError(kind: .invalidConfiguration, message: "node ids start at 1")
        }
        var added = false
        return try withLeader { leader, nodes throws(ClusterError) in
            let member = try MembershipCheck.existingMember(id: id, address: address, in: nodes)
            if member?.role == .voter {
                return added ? .added : .alreadyVoter
            }
            if member == nil {
                try request("ADD node \(id) at \(address)") { () throws(DqliteError) in
                    try leader.connection.add(id: id, address: address)
                }
                added = true
            }
            try request("ASSIGN node \(id) the voter role") { () throws(DqliteError) in
                try leader.connection.assign(id: id, role: .voter)
            }
            return added ? .added : .promoted
        }
    }

    /// Removes the node `id` from the configuration; the node itself keeps running until it is stopped.
    ///
    /// - Throws: ``ClusterError`` `.invalidConfiguration` when `id` is not a member or is the leader (hand its
    ///   leadership over first, ``transfer(to:)``); `.membership` when the leader refused; `.unavailable`.
    public func remove(id: UInt64) throws(ClusterError) {
        // A REMOVE sent before the connection broke may have been applied: on the retry, the node gone is success.
        var sent = false
        try withLeader { leader, nodes throws(ClusterError) in
            if sent && !nodes.contains(where: { $0.id == id }) { return }
            try Self.requireMember(id, in: nodes)
            guard id != leader.id else {
                throw ClusterError(
                    kind: .invalidConfiguration,
                    message: "node \(id) is the leader: transfer its leadership to another voter first"
                )
            }
            sent = true
            try request("REMOVE node \(id)") { () throws(DqliteError) in
                try leader.connection.remove(id: id)
            }
        }
    }

    /// Hands leadership to the voter `id`; nothing is sent when it leads already.
    ///
    /// The leader refuses a transfer to a node that is down or behind ("leadership transfer failed"); that refusal
    /// is asked again until ``timeout``, so a transfer right after the target started again waits for it to catch up.
    ///
    /// - Throws: ``ClusterError`` `.invalidConfiguration` when `id` is not a member or not a voter; `.unavailable`
    ///   when no leader answered, or the leadership did not move to `id`, within ``timeout``.
    public func transfer(to id: UInt64) throws(ClusterError) {
        try withLeader { leader, nodes throws(ClusterError) in
            let member = try Self.requireMember(id, in: nodes)
            guard member.role == .voter else {
                throw ClusterError(
                    kind: .invalidConfiguration,
                    message: "node \(id) is not a voter: only a voter can lead (add it as a voter first)"
                )
            }
            guard id != leader.id else { return }
            do throws(DqliteError) {
                try leader.connection.transfer(to: id)
            } catch {
                // dqlite refuses a transfer whose target does not catch up in time ("leadership transfer failed",
                // DQLITE_ERROR), as a node that has just started again may not: asked again until the timeout.
                // A refusal as a non-leader, a broken connection: the leader is looked up again.
                let reason = error.kind == .failure ? error.message : "\(error)"
                throw ClusterError(
                    kind: .unavailable,
                    code: error.code,
                    message: "the leader did not hand its leadership to node \(id) (\(reason))"
                )
            }
        }
    }

    @discardableResult
    private static func requireMember(_ id: UInt64, in nodes: [DqliteNodeInfo]) throws(ClusterError) -> DqliteNodeInfo {
        guard let member = nodes.first(where: { $0.id == id }) else {
            throw ClusterError(
                kind: .invalidConfiguration,
                message: "node \(id) is not a member of the cluster (members: "
                    + nodes.map { "\($0.id)" }.joined(separator: ", ") + ")"
            )
        }
        return member
    }

    /// Runs one membership request; a failure the leader answered (other than "not leader") ends the operation.
    private func request(_ what: String, _ body: () throws(DqliteError) -> Void) throws(ClusterError) {
        do {
            try body()
        } catch {
            if error.kind == .failure && !error.isNotLeader {
                throw ClusterError(
                    kind: .membership,
                    code: error.code,
                    message: "the leader refused to \(what): \(error.message)"
                )
            }
            throw ClusterError(kind: .unavailable, code: error.code, message: "\(what): \(error)")
        }
    }

    /// Finds the leader, reads its CLUSTER answer and runs `body` with both; tried again, until the timeout, when
    /// no leader answered, the connection broke or the leader stepped down (`.unavailable` from `body`).
    private func withLeader<T>(
        _ body: (LeaderLocator.Found, [DqliteNodeInfo]) throws(ClusterError) -> T
    ) throws(ClusterError) -> T {
        let deadline = ContinuousClock.now + timeout
        let locator = LeaderLocator(options: connectionOptions)
        var backoff = Backoff()
        var lastError: String?
        /// Whether a leader was reached: the timeout's message then says what it answered, not that none did.
        var leaderReached = false
        repeat {
            var dqliteError: DqliteError?
            if let leader = locator.connect(members: members, deadline: deadline, lastError: &dqliteError) {
                defer { leader.connection.close() }
                leaderReached = true
                do throws(ClusterError) {
                    let nodes: [DqliteNodeInfo]
                    do {
                        nodes = try leader.connection.cluster()
                    } catch {
                        throw ClusterError(kind: .unavailable, code: error.code, message: "CLUSTER: \(error)")
                    }
                    return try body(leader, nodes)
                } catch {
                    guard error.kind == .unavailable else { throw error }
                    lastError = error.message
                }
            } else if let dqliteError {
                lastError = "\(dqliteError)"
            }
        } while backoff.wait(until: deadline)
        if leaderReached, let lastError {
            throw ClusterError(kind: .unavailable, message: "not done within \(timeout): \(lastError)")
        }
        throw ClusterError(
            kind: .unavailable,
            message: "no leader of the cluster answered within \(timeout) (asked: "
                + members.joined(separator: ", ") + ")" + (lastError.map { ": \($0)" } ?? "")
        )
    }
}
