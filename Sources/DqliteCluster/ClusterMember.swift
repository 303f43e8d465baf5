import DqliteClient
import DqliteNode

/// This process's membership of the cluster: its embedded dqlite node, how it joins, how it leaves.
///
/// ``start()`` runs the node. On the first start (no membership recorded in the data directory) a node with id 1
/// bootstraps a one-voter cluster, and any other node with ``ClusterMemberConfiguration/join`` addresses joins: it
/// finds the leader through them and asks it ADD (as a spare) then ASSIGN (voter), retrying while there is no
/// leader or it changes, until ``ClusterMemberConfiguration/joinTimeout``. The leader's CLUSTER answer is checked
/// first, so a node that is already a member is not added twice. Once a member, the node records it in its data
/// directory (a file `sqlited-member` holding its id); later starts only run the node, without asking anyone, so a
/// whole cluster can restart one node at a time.
///
/// ``leave(remove:)`` is the graceful shutdown: leadership goes to another voter first, the node is optionally
/// removed from the configuration, then it stops.
///
/// Thread-safe: the node serializes its own calls; the membership requests use connections of their own.
public final class ClusterMember: Sendable {
    /// What ``start()`` did.
    public enum StartOutcome: Sendable, Hashable {
        /// Node id 1's first start: dqlite bootstrapped a one-voter cluster.
        case bootstrapped
        /// The leader added this node and made it a voter.
        case joined
        /// The leader already listed this node (a join interrupted earlier, or a lost membership record); it was
        /// made a voter if it was not one, and not added again.
        case alreadyMember
        /// The data directory records the membership: the node only started.
        case restarted
        /// A first start without join addresses: the node waits for an operator to add it.
        case waitingToBeAdded
    }

    /// What ``leave(remove:)`` did before stopping the node.
    public struct LeaveOutcome: Sendable, Hashable {
        /// The voter that leadership was handed to, when this node was the leader.
        public var transferredTo: UInt64?
        /// Whether the leader removed this node from the configuration.
        public var removed: Bool

        public init(transferredTo: UInt64?, removed: Bool) {
            self.transferredTo = transferredTo
            self.removed = removed
        }
    }

    /// The name of the file that records the membership in the data directory.
    public static let membershipFileName = "sqlited-member"

    public let configuration: ClusterMemberConfiguration
    private let node: DqliteNode

    /// Creates the node and binds its address; nothing runs until ``start()``.
    ///
    /// - Throws: ``ClusterError`` `.node` when dqlite refuses the configuration or cannot bind the address.
    public init(configuration: ClusterMemberConfiguration) throws(ClusterError) {
        self.configuration = configuration
        do {
            node = try DqliteNode(
                configuration: DqliteNodeConfiguration(
                    id: configuration.id,
                    address: configuration.address,
                    bindAddress: configuration.bindAddress,
                    dataDirectory: configuration.dataDirectory,
                    networkLatencyMilliseconds: configuration.networkLatencyMilliseconds
                )
            )
        } catch {
            throw ClusterError(node: error)
        }
    }

    /// Whether the node runs (started, not stopped).
    public var isRunning: Bool {
        node.isRunning
    }

    /// Starts the node, then bootstraps or joins as described above. Blocks until the node is a voter, at most
    /// ``ClusterMemberConfiguration/joinTimeout`` for a join.
    ///
    /// - Throws: ``ClusterError`` `.invalidConfiguration` when the data directory records another node id, or when
    ///   node id 1 is given join addresses on its first start (it would bootstrap a second cluster); `.node` when
    ///   the node cannot start; `.membership` when the join fails or times out, after which the node is stopped
    ///   (a node cannot be started twice: create a new member to try again).
    @discardableResult
    public func start() throws(ClusterError) -> StartOutcome {
        let recorded = try MembershipFile.read(in: configuration.dataDirectory)
        if let recorded, recorded != configuration.id {
            throw ClusterError(
                kind: .invalidConfiguration,
                message: "the data directory \(configuration.dataDirectory) belongs to node \(recorded), "
                    + "not to node \(configuration.id)"
            )
        }
        if recorded == nil && configuration.id == 1 && !configuration.join.isEmpty {
            throw ClusterError(
                kind: .invalidConfiguration,
                message: "node id 1 bootstraps a new cluster on its first start: a node that joins needs another id"
            )
        }
        do {
            try node.start()
        } catch {
            throw ClusterError(node: error)
        }
        if recorded != nil {
            return .restarted
        }
        let outcome: StartOutcome
        if configuration.id == 1 {
            outcome = .bootstrapped
        } else if configuration.join.isEmpty {
            return .waitingToBeAdded
        } else {
            do {
                outcome = try join()
            } catch {
                try? node.stop()
                throw error
            }
        }
        try MembershipFile.write(configuration.id, in: configuration.dataDirectory)
        return outcome
    }

    /// Stops the node without telling the cluster (the others see it as failed until it comes back).
    ///
    /// - Throws: ``ClusterError`` `.node` when the node's loop ended with an error.
    public func stop() throws(ClusterError) {
        do {
            try node.stop()
        } catch {
            throw ClusterError(node: error)
        }
    }

    /// Leaves gracefully, then stops the node: when this node is the leader it hands leadership to another voter
    /// first (TRANSFER), so writes pause for one round trip instead of an election; with `remove`, the leader then
    /// removes it from the configuration (REMOVE) and the membership record is deleted, so that a later start
    /// joins again (with an emptied data directory: the old Raft log describes the old configuration).
    ///
    /// The node is stopped even when a step fails or the ``ClusterMemberConfiguration/leaveTimeout`` passes;
    /// the first failure is thrown afterwards. A sole voter neither transfers nor is removed.
    ///
    /// - Throws: ``ClusterError`` `.membership` when the transfer or the removal failed, `.node` when stopping
    ///   failed.
    @discardableResult
    public func leave(remove: Bool = false) throws(ClusterError) -> LeaveOutcome {
        guard node.isRunning else { return LeaveOutcome(transferredTo: nil, removed: false) }
        let deadline = ContinuousClock.now + configuration.leaveTimeout
        var outcome = LeaveOutcome(transferredTo: nil, removed: false)
        var failure: ClusterError?
        do {
            let others = try transferLeadershipIfLeader(deadline: deadline, outcome: &outcome)
            if remove && !others.isEmpty {
                try removeSelf(askingAny: others, deadline: deadline)
                outcome.removed = true
                try MembershipFile.delete(in: configuration.dataDirectory)
            }
        } catch {
            failure = error
        }
        do {
            try node.stop()
        } catch {
            failure = failure ?? ClusterError(node: error)
        }
        if let failure {
            throw failure
        }
        return outcome
    }

    /// The cluster as this node sees it (CLUSTER and LEADER asked of this node).
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when the node does not answer.
    public func clusterInfo() throws(ClusterError) -> ClusterInfo {
        do {
            let connection = try DqliteConnection(
                address: configuration.address,
                options: configuration.connectionOptions
            )
            defer { connection.close() }
            let nodes = try connection.cluster()
            let leader = try connection.leader()
            return ClusterInfo(
                nodeID: configuration.id,
                leaderID: leader?.id,
                leaderAddress: leader?.address,
                nodes: nodes
            )
        } catch {
            throw ClusterError(.unavailable, error)
        }
    }

    private var locator: LeaderLocator {
        LeaderLocator(options: configuration.connectionOptions)
    }

    /// Finds the leader through the join addresses and becomes a voter; retries until the join timeout.
    private func join() throws(ClusterError) -> StartOutcome {
        let deadline = ContinuousClock.now + configuration.joinTimeout
        var backoff = Backoff()
        var lastError: DqliteError?
        var added = false
        repeat {
            if let leader = locator.connect(members: configuration.join, deadline: deadline, lastError: &lastError) {
                defer { leader.connection.close() }
                // NOT_LEADER, a broken connection, a leader that stepped down during the change: find the leader
                // again. CLUSTER is asked first, so a step that did complete is not repeated.
                let nodes: [DqliteNodeInfo]
                do throws(DqliteError) {
                    nodes = try leader.connection.cluster()
                } catch {
                    lastError = error
                    continue
                }
                let member = try MembershipCheck.existingMember(
                    id: configuration.id,
                    address: configuration.address,
                    in: nodes
                )
                do throws(DqliteError) {
                    if let member {
                        if member.role != .voter {
                            try leader.connection.assign(id: configuration.id, role: .voter)
                        }
                        return added ? .joined : .alreadyMember
                    }
                    try leader.connection.add(id: configuration.id, address: configuration.address)
                    added = true
                    try leader.connection.assign(id: configuration.id, role: .voter)
                    return .joined
                } catch {
                    lastError = error
                }
            }
        } while backoff.wait(until: deadline)
        throw ClusterError(
            kind: .membership,
            code: lastError?.code ?? 0,
            message: "node \(configuration.id) could not join the cluster within \(configuration.joinTimeout)"
                + (lastError.map { ": \($0)" } ?? ": no member named a leader")
        )
    }

    /// Hands leadership to another voter when this node leads; returns the addresses of the other voters.
    private func transferLeadershipIfLeader(
        deadline: ContinuousClock.Instant,
        outcome: inout LeaveOutcome
    ) throws(ClusterError) -> [String] {
        let connection: DqliteConnection
        let nodes: [DqliteNodeInfo]
        let leader: (id: UInt64, address: String)?
        do {
            connection = try locator.open(configuration.address, deadline: deadline)
            nodes = try connection.cluster()
            leader = try connection.leader()
        } catch {
            throw ClusterError(.membership, error)
        }
        defer { connection.close() }
        let others = nodes.filter { $0.role == .voter && $0.id != configuration.id }
        guard leader?.id == configuration.id, !others.isEmpty else {
            return others.map(\.address)
        }
        var lastError: DqliteError?
        var backoff = Backoff()
        repeat {
            for candidate in others {
                do {
                    try connection.transfer(to: candidate.id)
                    outcome.transferredTo = candidate.id
                    return others.map(\.address)
                } catch {
                    // A candidate that is down or behind refuses; the next one may take it.
                    lastError = error
                    guard connection.isOpen else { throw ClusterError(.membership, error) }
                }
            }
        } while backoff.wait(until: deadline)
        throw ClusterError(
            kind: .membership,
            code: lastError?.code ?? 0,
            message: "no voter took the leadership of node \(configuration.id)"
                + (lastError.map { ": \($0)" } ?? "")
        )
    }

    /// Asks the leader, found through the other voters, to remove this node; retries until `deadline`.
    private func removeSelf(askingAny members: [String], deadline: ContinuousClock.Instant) throws(ClusterError) {
        var backoff = Backoff()
        var lastError: DqliteError?
        repeat {
            if let leader = locator.connect(members: members, deadline: deadline, lastError: &lastError) {
                defer { leader.connection.close() }
                do {
                    guard try leader.connection.cluster().contains(where: { $0.id == configuration.id }) else {
                        return
                    }
                    try leader.connection.remove(id: configuration.id)
                    return
                } catch {
                    lastError = error
                }
            }
        } while backoff.wait(until: deadline)
        throw ClusterError(
            kind: .membership,
            code: lastError?.code ?? 0,
            message: "node \(configuration.id) could not be removed from the cluster"
                + (lastError.map { ": \($0)" } ?? ": no member named a leader")
        )
    }
}
