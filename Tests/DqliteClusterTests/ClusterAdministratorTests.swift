import DqliteClient
import DqliteCluster
import LoopbackTestSupport
import Testing

/// ClusterAdministrator (what `sqlited cluster list|add|remove|transfer` runs) against real clusters in this
/// process.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ClusterAdministratorTests {
    /// The deadline is a hang limit, not a speed check: in a clean-clone CI run the third node of a cluster just
    /// formed beside the other suites' clusters still knew no leader after 15 s (the formation itself took 33 s).
    private func administrator(_ members: [String], timeout: Duration = .seconds(40)) -> ClusterAdministrator {
        ClusterAdministrator(members: members, timeout: timeout, connectionOptions: testConnectionOptions)
    }

    /// Checks that list answers the three voters and the leader through a follower, that transfer moves the
    /// leadership (and is a no-op to the leader itself), and that requests that cannot work are refused with a
    /// message before anything is sent: an unknown id, removing the leader.
    @Test func listTransferAndRefusals() throws {
        let members = try formCluster()
        let admin = administrator([members[2].address])
        let info = try admin.list()
        #expect(info.nodes.map(\.id) == [1, 2, 3])
        #expect(info.voters.count == 3)
        #expect(info.leaderID == 1)
        #expect(info.leaderAddress == members[0].address)

        try admin.transfer(to: 2)
        #expect(try admin.list().leaderID == 2)
        try admin.transfer(to: 2)
        #expect(try admin.list().leaderID == 2)

        let unknown = clusterError { try admin.transfer(to: 9) }
        #expect(unknown?.kind == .invalidConfiguration)
        #expect(unknown?.message == "node 9 is not a member of the cluster (members: 1, 2, 3)")
        let leader = clusterError { try admin.remove(id: 2) }
        #expect(leader?.kind == .invalidConfiguration)
        #expect(leader?.message.contains("node 2 is the leader") == true)
        #expect(clusterError { try admin.remove(id: 7) }?.kind == .invalidConfiguration)
        #expect(try admin.list().nodes.count == 3)
    }

    /// Checks that a node started without join addresses is added as a voter and serves as one (the leadership
    /// can go to it), that adding it again changes nothing, that its id at another address or another node at its
    /// address is refused, and that it is removed.
    @Test func addThenRemove() throws {
        let members = try formCluster()
        let fourth = try TestMember(id: 4)
        #expect(fourth.startOutcome == .waitingToBeAdded)
        let admin = administrator([members[1].address])

        #expect(try admin.add(id: 4, address: fourth.address) == .added)
        var info = try admin.list()
        #expect(info.voters.map(\.id) == [1, 2, 3, 4])
        #expect(try admin.add(id: 4, address: fourth.address) == .alreadyVoter)
        #expect(clusterError { try admin.add(id: 4, address: "127.0.0.1:1") }?.kind == .invalidConfiguration)
        #expect(clusterError { try admin.add(id: 5, address: fourth.address) }?.kind == .invalidConfiguration)
        #expect(clusterError { try admin.add(id: 0, address: "127.0.0.1:1") }?.kind == .invalidConfiguration)

        try admin.transfer(to: 4)
        #expect(try admin.list().leaderID == 4)
        try admin.transfer(to: 1)
        try admin.remove(id: 4)
        info = try admin.list()
        #expect(info.nodes.map(\.id) == [1, 2, 3])
        #expect(info.leaderID == 1)
    }

    /// Checks that with no member answering the request ends at the timeout with `.unavailable` naming the
    /// addresses asked.
    @Test func noMember_isUnavailable() throws {
        let address = "127.0.0.1:\(try freeLoopbackPort())"
        let error = clusterError { try administrator([address], timeout: .milliseconds(300)).list() }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains(address) == true)
    }
}
