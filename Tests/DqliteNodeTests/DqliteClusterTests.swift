import DqliteClient
import DqliteNode
import Testing

/// Three dqlite nodes in this process form a cluster through DqliteClient's membership requests.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct DqliteClusterTests {
    /// Checks bootstrap, ADD + ASSIGN voter of nodes 2 and 3, CLUSTER with three voters, a write through the
    /// leader read back, NOT_LEADER from a follower, and TRANSFER after which the new leader serves the row.
    @Test func threeNodes_joinReplicateTransfer() throws {
        let first = try TestNode(id: 1)
        let second = try TestNode(id: 2)
        let third = try TestNode(id: 3)
        let leader = try first.connectWhenLeaderKnown()
        for joining in [second, third] {
            try leader.add(id: joining.id, address: joining.address)
            try leader.assign(id: joining.id, role: .voter)
        }
        let members = try leader.cluster().sorted { $0.id < $1.id }
        #expect(
            members == [
                DqliteNodeInfo(id: 1, address: first.address, role: .voter),
                DqliteNodeInfo(id: 2, address: second.address, role: .voter),
                DqliteNodeInfo(id: 3, address: third.address, role: .voter),
            ]
        )

        let db = try leader.open("cluster.db")
        _ = try leader.exec(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)", database: db)
        #expect(
            try leader.exec(sql: "INSERT INTO t(v) VALUES (?)", parameters: [.text("replicated")], database: db)
                .rowsAffected == 1
        )
        #expect(try leader.query(sql: "SELECT v FROM t", database: db).rows == [[.text("replicated")]])

        // A follower knows the leader and refuses statements.
        let follower = try second.connect()
        try waitUntil("node 2 knows the leader") { try follower.leader()?.id == 1 }
        #expect(try follower.leader()?.address == first.address)
        let followerDB = try follower.open("cluster.db")
        let refused = dqliteError { try follower.query(sql: "SELECT v FROM t", database: followerDB) }
        #expect(refused?.isNotLeader == true)
        #expect(try follower.cluster().count == 3)

        // Leadership moves to node 2, which then serves the replicated row.
        try leader.transfer(to: 2)
        try waitUntil("node 2 is the leader") { try follower.leader()?.id == 2 }
        let newLeader = try second.connect()
        let newDB = try newLeader.open("cluster.db")
        #expect(try newLeader.query(sql: "SELECT v FROM t", database: newDB).rows == [[.text("replicated")]])
        _ = try newLeader.exec(sql: "INSERT INTO t(v) VALUES ('after transfer')", database: newDB)
        #expect(try newLeader.query(sql: "SELECT count(*) FROM t", database: newDB).rows == [[.integer(2)]])

        // REMOVE through the new leader shrinks the configuration.
        try newLeader.remove(id: 3)
        #expect(try newLeader.cluster().map(\.id).sorted() == [1, 2])
    }
}
