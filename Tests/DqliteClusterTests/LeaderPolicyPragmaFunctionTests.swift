import DqliteClient
import DqliteCluster
import SQLiteService
import Testing

/// Table-valued pragmas on the leader's read-only connections (``LeaderAuthorizerStateMachine``).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LeaderPolicyPragmaFunctionTests {
    init() throws {
        try LeaderPolicy.register()
    }

    /// Checks that a read client reads `pragma_table_info` (SQLite asks an update of `sqlite_master` while it
    /// prepares it, which writes nothing), that a client's own update of `sqlite_master` is still refused before it
    /// runs, and that the leader keeps serving writes afterwards.
    @Test func readClient_readsTableValuedPragma_butCannotUpdateSchemaTable() throws {
        let members = try formCluster()
        var options = clientOptions()
        options.queryOnly = false
        let writer = ClusterClient(members: [members[2].address], options: options)
        options.queryOnly = true
        let reader = ClusterClient(members: [members[2].address], options: options)
        _ = try writer.exec("CREATE TABLE t(x TEXT, y INTEGER)")

        let columns = try reader.query("SELECT name FROM pragma_table_info('t') ORDER BY cid")
        #expect(columns.rows == [[.text("x")], [.text("y")]])

        let refused = clusterError { try reader.query("UPDATE sqlite_master SET sql = 'x' WHERE name = 't'") }
        #expect(refused?.kind == .failure)
        let refusedWrite = clusterError { try writer.exec("UPDATE sqlite_master SET sql = 'x' WHERE name = 't'") }
        #expect(refusedWrite?.kind == .failure)
        let schema = try reader.query("SELECT sql FROM sqlite_master WHERE name = 't'")
        #expect(schema.rows == [[.text("CREATE TABLE t(x TEXT, y INTEGER)")]])

        #expect(try writer.exec("INSERT INTO t VALUES ('a', 1)").rowsAffected == 1)
        #expect(try reader.query("SELECT count(*) FROM t").rows == [[.integer(1)]])
    }
}
