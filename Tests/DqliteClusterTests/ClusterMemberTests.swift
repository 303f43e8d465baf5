import DqliteClient
import DqliteCluster
import Foundation
import LoopbackTestSupport
import Testing

/// ClusterMember with real dqlite nodes in this process: bootstrap, join, restart, graceful leave.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClusterMemberTests {
    /// Checks that node 1 bootstraps, node 2 joins through node 1 and node 3 through node 2 (a follower), that the
    /// leader lists three voters as soon as the last join returns, and that every member's clusterInfo comes to list
    /// them with node 1 as the leader (a follower's view is its own log's, which may lag the leader's).
    @Test func threeMembers_formClusterThroughJoin() throws {
        let members = try formCluster()
        #expect(members.map(\.startOutcome) == [.bootstrapped, .joined, .joined])
        let expected = members.map { DqliteNodeInfo(id: $0.id, address: $0.address, role: .voter) }
        #expect(try members[0].member.clusterInfo().nodes == expected)
        for member in members {
            try waitUntil("node \(member.id) lists three voters under leader 1") {
                let info = try member.member.clusterInfo()
                return info.leaderID == 1 && info.nodes == expected
            }
            let info = try member.member.clusterInfo()
            #expect(info.nodeID == member.id)
            #expect(info.nodes == expected)
            #expect(info.voters.count == 3)
            #expect(info.leaderAddress == members[0].address)
        }
    }

    /// Checks that a member restarted with its data directory only starts (no ADD; its join list is ignored), and
    /// that one whose membership record was lost is found in the leader's configuration and not added again.
    @Test func restart_keepsMembershipWithoutJoining() throws {
        let members = try formCluster()
        let third = members[2]
        try third.restart(join: [members[0].address])
        #expect(third.startOutcome == .restarted)
        try waitUntil("the restarted node knows the leader") { try third.member.clusterInfo().leaderID == 1 }
        #expect(try members[0].member.clusterInfo().voters.map(\.id) == [1, 2, 3])

        // The restarted node still votes: with node 2 stopped, nodes 1 and 3 are a quorum and take writes.
        try members[1].member.stop()
        let client = ClusterClient(members: [third.address], options: clientOptions())
        _ = try client.exec("CREATE TABLE t(v INTEGER)")
        _ = try client.exec("INSERT INTO t VALUES (1)")

        try FileManager.default.removeItem(
            atPath: third.directory.path + "/" + ClusterMember.membershipFileName
        )
        try third.restart(join: [members[0].address])
        #expect(third.startOutcome == .alreadyMember)
        #expect(try members[0].member.clusterInfo().voters.map(\.id) == [1, 2, 3])
        #expect(try client.query("SELECT count(*) FROM t").rows == [[.integer(1)]])
    }

    /// Checks that the leader's leave() hands leadership to another voter before stopping, that REMOVE takes it
    /// out of the configuration, and that the two others keep serving writes.
    @Test func leave_ofLeaderTransfersLeadershipFirst() throws {
        let members = try formCluster()
        let client = ClusterClient(members: members.map(\.address), options: clientOptions())
        _ = try client.exec("CREATE TABLE t(v INTEGER)")
        _ = try client.exec("INSERT INTO t VALUES (1)")
        #expect(client.leader?.id == 1)

        let started = ContinuousClock.now
        let outcome = try members[0].member.leave(remove: true)
        let transferredTo = try #require(outcome.transferredTo)
        #expect([2, 3].contains(transferredTo))
        #expect(outcome.removed)
        #expect(!members[0].member.isRunning)
        #expect(
            !FileManager.default.fileExists(
                atPath: members[0].directory.path + "/" + ClusterMember.membershipFileName
            )
        )

        _ = try client.exec("INSERT INTO t VALUES (2)")
        print("leave(): leader transfer, removal and the next write took \(ContinuousClock.now - started)")
        let info = try members[1].member.clusterInfo()
        #expect(info.nodes.map(\.id) == [2, 3])
        #expect(info.leaderID == transferredTo)
        #expect(client.leader?.id == transferredTo)
        #expect(try client.query("SELECT v FROM t ORDER BY v").rows == [[.integer(1)], [.integer(2)]])
    }

    /// Checks that a follower's leave() transfers nothing and, without `remove`, leaves the configuration as is.
    @Test func leave_ofFollowerOnlyStops() throws {
        let members = try formCluster()
        let outcome = try members[2].member.leave()
        #expect(outcome == ClusterMember.LeaveOutcome(transferredTo: nil, removed: false))
        #expect(try members[0].member.clusterInfo().voters.count == 3)
    }

    /// Checks the configurations refused before the node starts: id 1 given addresses to join on its first
    /// start, and a data directory recorded for another node id.
    @Test func start_refusesConflictingConfigurations() throws {
        let directory = try TemporaryDirectory()
        let bootstrapping = try ClusterMember(
            configuration: memberConfiguration(
                id: 1,
                address: "127.0.0.1:\(try freeLoopbackPort())",
                directory: directory,
                join: ["127.0.0.1:1"]
            )
        )
        #expect(clusterError { try bootstrapping.start() }?.kind == .invalidConfiguration)
        #expect(!bootstrapping.isRunning)

        try "2\n".write(
            toFile: directory.path + "/" + ClusterMember.membershipFileName,
            atomically: true,
            encoding: .utf8
        )
        let other = try ClusterMember(
            configuration: memberConfiguration(
                id: 3,
                address: "127.0.0.1:\(try freeLoopbackPort())",
                directory: directory
            )
        )
        #expect(clusterError { try other.start() }?.kind == .invalidConfiguration)
    }

    /// Checks that a join through addresses where nobody answers fails with `.membership` once the join timeout
    /// passed, and stops the node.
    @Test func join_withoutReachableMember_timesOut() throws {
        let directory = try TemporaryDirectory()
        var configuration = memberConfiguration(
            id: 2,
            address: "127.0.0.1:\(try freeLoopbackPort())",
            directory: directory,
            join: ["127.0.0.1:\(try freeLoopbackPort())"]
        )
        configuration.joinTimeout = .milliseconds(500)
        let member = try ClusterMember(configuration: configuration)
        let started = ContinuousClock.now
        #expect(clusterError { try member.start() }?.kind == .membership)
        #expect(ContinuousClock.now - started >= .milliseconds(500))
        #expect(!member.isRunning)
    }
}
