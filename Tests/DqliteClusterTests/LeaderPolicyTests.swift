import DqliteClient
import DqliteCluster
import SQLiteEngine
import SQLiteService
import Testing

/// SQLiteService's `LeaderPolicy` on the connections dqlite opens in this process, through real three-node
/// clusters and the wire client: the hostile cases of the service's own policy are refused by the leader with
/// SQLite's error and change nothing, ordinary SQL and dqlite's own set-up keep working, a read client cannot
/// write, and connections not opened by dqlite are left alone.
///
/// The registration holds for the whole process: the dqlite suites that open connections after it, in this
/// process, run under the policy too (and pass).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LeaderPolicyTests {
    static let sqliteError: UInt64 = 1
    static let sqliteReadOnly: UInt64 = 8
    static let sqliteTooBig: UInt64 = 18
    static let sqliteAuth: UInt64 = 23

    init() throws {
        try LeaderPolicy.register()
    }

    /// A client whose connections run `PRAGMA query_only = <queryOnly>` after OPEN.
    func client(_ members: [TestMember], queryOnly: Bool) -> ClusterClient {
        var options = clientOptions()
        options.queryOnly = queryOnly
        return ClusterClient(members: [members[2].address], options: options)
    }

    /// Checks that every hostile statement the service's policy refuses is refused by the leader too, with the
    /// SQLite error the service maps (`SQLITE_AUTH`, the function denial's `SQLITE_ERROR`, `SQLITE_TOOBIG` from a
    /// limit or a function guard), and that the database is unchanged afterwards.
    @Test func hostileStatements_areRefused_andChangeNothing() throws {
        let members = try formCluster()
        let client = client(members, queryOnly: false)
        _ = try client.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        _ = try client.exec("INSERT INTO t(v) VALUES ('a')")
        let long = String(repeating: "x", count: 20_000)
        let cases: [(sql: String, parameters: [DqliteValue], code: UInt64, message: String)] = [
            ("ATTACH DATABASE 'file:hostile?mode=memory' AS hostile", [], Self.sqliteAuth, "not authorized"),
            ("DETACH DATABASE main", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA writable_schema = 1", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA writable_schema", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA database_list", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA foreign_keys = 0", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA trusted_schema = 1", [], Self.sqliteAuth, "not authorized"),
            // dqlite's own set-up pragmas, exactly as it sends them, are refused once the set-up is over.
            ("PRAGMA synchronous=OFF", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA journal_mode=WAL", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA journal_mode = DELETE", [], Self.sqliteAuth, "not authorized"),
            ("PRAGMA query_only = 1", [], Self.sqliteAuth, "not authorized"),
            ("CREATE TEMP TABLE scratch(x)", [], Self.sqliteAuth, "not authorized"),
            ("SELECT * FROM sqlite_stmt", [], Self.sqliteAuth, "access to sqlite_stmt"),
            (
                "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')", [], Self.sqliteError,
                "not authorized to use function: load_extension"
            ),
            ("SELECT fts3_tokenizer('simple')", [], Self.sqliteError, "not authorized to use function: fts3_tokenizer"),
            // Limits: SQL text, value length, parameters, expression depth.
            ("SELECT 1" + String(repeating: " ", count: 1_000_000), [], Self.sqliteTooBig, "string or blob too big"),
            ("INSERT INTO t(v) VALUES (zeroblob(20000000))", [], Self.sqliteTooBig, "string or blob too big"),
            ("SELECT ?32767", [], Self.sqliteError, "variable number must be between ?1 and ?32766"),
            (
                "SELECT " + Array(repeating: "1", count: 1001).joined(separator: " + "), [], Self.sqliteError,
                "Expression tree is too large (maximum depth 1000)"
            ),
            // Function guards.
            ("INSERT INTO t(v) VALUES (printf('%.*c', 2000000000, 'x'))", [], Self.sqliteTooBig, "printf()"),
            ("INSERT INTO t(v) VALUES (trim(?, ?))", [.text(long), .text(long)], Self.sqliteTooBig, "trim()"),
        ]
        for hostile in cases {
            let refused = clusterError { try client.exec(hostile.sql, parameters: hostile.parameters) }
            #expect(refused?.kind == .failure, "\(hostile.sql.prefix(80))")
            #expect(refused?.code == hostile.code, "\(hostile.sql.prefix(80))")
            #expect(
                refused?.message.hasPrefix(hostile.message) == true,
                "\(hostile.sql.prefix(80)): \(refused?.message ?? "")"
            )
        }
        // Refused at a step of a query (a read): a failure, on a connection that stays usable.
        let failingReads: [(sql: String, code: UInt64, message: String)] = [
            ("SELECT zeroblob(20000000)", Self.sqliteTooBig, "string or blob too big"),
            ("SELECT printf('%.*c', 2000000000, 'x')", Self.sqliteTooBig, "printf()"),
            ("SELECT v FROM t UNION ALL SELECT abs(-9223372036854775808)", Self.sqliteError, "integer overflow"),
        ]
        for read in failingReads {
            let refused = clusterError { try client.query(read.sql) }
            #expect(refused?.kind == .failure, "\(read.sql)")
            #expect(refused?.code == read.code, "\(read.sql)")
            #expect(refused?.message.hasPrefix(read.message) == true, "\(read.sql): \(refused?.message ?? "")")
        }
        #expect(try client.query("SELECT id, v FROM t").rows == [[.integer(1), .text("a")]])
        #expect(try client.query("SELECT name FROM sqlite_schema").rows == [[.text("t")]])
        #expect(try client.query("PRAGMA foreign_keys").rows == [[.integer(1)]])
    }

    /// Checks that ordinary SQL works on policy-guarded leader connections: DDL, writes, reads, a transaction, the
    /// allowed pragmas, the guarded functions under their bounds; and that dqlite's set-up ran (the settings it
    /// makes are in force).
    @Test func ordinarySQL_andDqliteSetUp_work() throws {
        let members = try formCluster()
        let client = client(members, queryOnly: false)
        _ = try client.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        _ = try client.exec("CREATE INDEX t_v ON t(v)")
        let inserted = try client.exec(
            "INSERT INTO t(v) VALUES (printf('%05d', ?)), (trim('  b  '))",
            parameters: [.integer(42)]
        )
        #expect(inserted == DqliteExecResult(lastInsertID: 2, rowsAffected: 2))
        try client.transaction { transaction in
            _ = try transaction.exec("INSERT INTO t(v) VALUES (replace('xay', 'a', 'c'))")
            _ = try transaction.exec("UPDATE t SET v = upper(v) WHERE id = 2")
        }
        #expect(
            try client.query("SELECT v FROM t ORDER BY id").rows == [[.text("00042")], [.text("B")], [.text("xcy")]]
        )
        _ = try client.exec("PRAGMA user_version = 7")
        #expect(try client.query("PRAGMA user_version").rows == [[.integer(7)]])
        #expect(try client.query("PRAGMA journal_mode").rows == [[.text("wal")]])
        #expect(try client.query("PRAGMA synchronous").rows == [[.integer(0)]])
        #expect(try client.query("PRAGMA foreign_keys").rows == [[.integer(1)]])
        #expect(try client.query("PRAGMA query_only").rows == [[.integer(0)]])
        #expect(try client.query("PRAGMA table_info(t)").rows.count == 2)
        _ = try client.exec("DROP TABLE t")
        #expect(try client.query("SELECT count(*) FROM sqlite_schema").rows == [[.integer(0)]])
    }

    /// Checks the read client of `POST /query`: its leader connections run reads, refuse every write whether sent
    /// as a query or an exec (`SQLITE_AUTH` when prepared, `SQLITE_READONLY` from `query_only` underneath), and
    /// cannot lift the setting; nothing of the refused
    /// writes is committed (read back after leadership moved to another member, which has only what was
    /// replicated); the write client's connections are sealed writable.
    @Test func readClient_cannotWrite_andNothingIsReplicated() throws {
        let members = try formCluster()
        let writer = client(members, queryOnly: false)
        let reader = client(members, queryOnly: true)
        _ = try writer.exec("CREATE TABLE t(v INTEGER)")
        _ = try writer.exec("INSERT INTO t VALUES (1)")

        #expect(try reader.query("SELECT v FROM t").rows == [[.integer(1)]])
        #expect(try reader.query("PRAGMA query_only").rows == [[.integer(1)]])
        // Writes are denied when prepared (SQLITE_AUTH), whether sent as a query or an exec.
        for sql in [
            "DELETE FROM t", "INSERT INTO t VALUES (2) RETURNING v", "UPDATE t SET v = 3", "CREATE TABLE u(x)",
            "PRAGMA user_version = 9",
        ] {
            let refused = clusterError { try reader.query(sql) }
            #expect(refused?.kind == .failure, "\(sql)")
            #expect(refused?.code == Self.sqliteAuth, "\(sql)")
            let refusedExec = clusterError { try reader.exec(sql) }
            #expect(refusedExec?.kind == .failure, "\(sql)")
            #expect(refusedExec?.code == Self.sqliteAuth, "\(sql)")
        }
        // What the authorizer lets through meets query_only: SQLITE_READONLY.
        for sql in ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"] {
            let refused = clusterError { try reader.exec(sql) }
            #expect(refused?.kind == .failure, "\(sql)")
            #expect(refused?.code == Self.sqliteReadOnly, "\(sql)")
        }
        for sql in ["PRAGMA query_only = 0", "PRAGMA query_only = OFF"] {
            #expect(clusterError { try reader.exec(sql) }?.code == Self.sqliteAuth, "\(sql)")
        }
        #expect(clusterError { try writer.exec("PRAGMA query_only = 1") }?.code == Self.sqliteAuth)
        _ = try writer.exec("INSERT INTO t VALUES (5)")

        // Leadership moves to another member: what it serves is what was replicated.
        let oldLeader = try #require(writer.leader)
        _ = try #require(members.first { $0.id == oldLeader.id }).member.leave()
        #expect(try writer.query("SELECT v FROM t ORDER BY v").rows == [[.integer(1)], [.integer(5)]])
        #expect(try writer.query("PRAGMA user_version").rows == [[.integer(0)]])
        #expect(try writer.query("SELECT count(*) FROM sqlite_schema").rows == [[.integer(1)]])
        #expect(writer.leader?.id != oldLeader.id)
        #expect(try reader.query("SELECT count(*) FROM t").rows == [[.integer(2)]])
        #expect(clusterError { try reader.exec("DELETE FROM t") }?.code == Self.sqliteAuth)
    }

    /// Checks `isReadOnly`, by which a caller tells a read from a write before choosing query or exec: reads
    /// (including a pure `WITH`) prepare on the read client, writes (also `INSERT … RETURNING`, `WITH … DELETE`) and
    /// policy denials do not, and nothing ran; a write client cannot answer.
    @Test func isReadOnly_tellsReadsFromWrites_runningNothing() throws {
        let members = try formCluster()
        let writer = client(members, queryOnly: false)
        let reader = client(members, queryOnly: true)
        _ = try writer.exec("CREATE TABLE t(v INTEGER)")
        _ = try writer.exec("INSERT INTO t VALUES (1)")
        for sql in ["SELECT v FROM t", "WITH c(x) AS (SELECT 1) SELECT x FROM c", "PRAGMA user_version", "BEGIN"] {
            #expect(try reader.isReadOnly(sql), "\(sql)")
        }
        for sql in [
            "INSERT INTO t VALUES (2) RETURNING v", "DELETE FROM t", "UPDATE t SET v = 3 RETURNING v",
            "WITH c(x) AS (SELECT 1) DELETE FROM t WHERE v IN c", "CREATE TABLE u(x)", "DROP TABLE t",
            "ATTACH DATABASE 'file:x?mode=memory' AS x", "PRAGMA user_version = 2",
        ] {
            #expect(try !reader.isReadOnly(sql), "\(sql)")
        }
        #expect(clusterError { try reader.isReadOnly("SELECT * FROM missing") }?.kind == .failure)
        #expect(clusterError { try writer.isReadOnly("SELECT 1") }?.kind == .invalidArgument)
        #expect(try writer.query("SELECT v FROM t").rows == [[.integer(1)]])
        #expect(try writer.query("SELECT count(*) FROM sqlite_schema").rows == [[.integer(1)]])
    }

    /// Checks that connections dqlite did not open keep their own settings: an engine connection opened after
    /// the registration may attach, set pragmas and create temporary tables, with SQLite's default limits; a
    /// connection the service prepares gets the service's policy, with the limits the leader's connections get.
    @Test func otherConnections_areLeftAlone() throws {
        let db = try Database(path: ":memory:")
        #expect(db.vfsName == "unix")
        try db.execute(sql: "ATTACH DATABASE ':memory:' AS other")
        try db.execute(sql: "PRAGMA synchronous = OFF")
        try db.execute(sql: "CREATE TEMP TABLE scratch(x)")
        #expect(db.limit(.sqlLength) == 1_000_000_000)
        #expect(db.limit(.attached) == 10)

        let prepared = try Database(path: ":memory:")
        SQLiteService.prepareConnection(prepared, role: .writer, limits: ServiceLimits())
        #expect(prepared.limit(.sqlLength) == ServiceLimits().maxSQLLength)
        #expect(prepared.limit(.attached) == 0)
        #expect(throws: DatabaseError.self) { try prepared.execute(sql: "PRAGMA synchronous = OFF") }
    }
}
