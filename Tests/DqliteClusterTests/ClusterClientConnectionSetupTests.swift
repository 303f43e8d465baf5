import DqliteClient
import DqliteCluster
import Testing

/// `ClusterClient.Options.connectionSetup` against a real three-node cluster: `PRAGMA query_only=1` on every leader
/// connection of a client makes the leader's SQLite refuse writes sent through it (the cluster backend's read-only
/// rule for `/query`), through EXEC_SQL and QUERY_SQL alike, also on connections opened after the leader changed.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClusterClientConnectionSetupTests {
    /// Reads work, writes fail with SQLITE_READONLY (8) and change nothing, the node survives, and after the
    /// leadership moves to another node the new connections refuse writes too.
    @Test func queryOnlySetup_refusesWritesBeforeAndAfterLeaderChange() throws {
        let members = try formCluster()
        let writer = ClusterClient(members: [members[1].address], options: clientOptions())
        _ = try writer.exec("CREATE TABLE t(v INTEGER)")
        _ = try writer.exec("INSERT INTO t VALUES (1)")
        var options = clientOptions()
        options.connectionSetup = ["PRAGMA query_only=1"]
        let reader = ClusterClient(members: [members[2].address], options: options)

        func expectWritesRefused() throws {
            #expect(try reader.query("SELECT count(*) FROM t").rows == [[.integer(1)]])
            for write in ["INSERT INTO t VALUES (2)", "DELETE FROM t", "CREATE TABLE u(x)"] {
                let error = clusterError { try reader.exec(write) }
                #expect(error?.kind == .failure, "\(write)")
                #expect(error.map { $0.code & 0xff } == 8, "\(write)")
            }
            let returning = clusterError { try reader.query("INSERT INTO t VALUES (3) RETURNING v") }
            #expect(returning?.kind == .failure)
            #expect(returning.map { $0.code & 0xff } == 8)
            // Nothing was written, and the leader still serves the writing client.
            _ = try writer.exec("UPDATE t SET v = v")
            #expect(try writer.query("SELECT count(*) FROM t").rows == [[.integer(1)]])
        }

        try expectWritesRefused()
        let firstLeader = try #require(reader.leader?.id)
        let leaving = try #require(members.first { $0.id == firstLeader })
        _ = try leaving.member.leave(remove: false)
        try waitUntil("the reader follows the new leader") {
            _ = try reader.query("SELECT 1")
            return reader.leader.map { $0.id != firstLeader } == true
        }
        try expectWritesRefused()
    }
}
