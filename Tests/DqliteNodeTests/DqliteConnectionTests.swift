import CSQLite
import DqliteClient
import DqliteNode
import Foundation
import Glibc
import LoopbackTestSupport
import Testing

/// DqliteClient against a real dqlite node started in this process, on 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(1)))
final class DqliteConnectionTests {
    let node: TestNode
    let connection: DqliteConnection
    let db: UInt32

    init() throws {
        node = try TestNode()
        connection = try node.connectWhenLeaderKnown()
        db = try connection.open("test.db")
    }

    /// Creates `big(n INTEGER PRIMARY KEY, pad TEXT)` with `rows` rows of 80-character `pad`s: results of several
    /// ROWS parts.
    private func makeBigTable(rows: Int) throws {
        _ = try connection.exec(
            sql: """
                CREATE TABLE big(n INTEGER PRIMARY KEY, pad TEXT);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
                INSERT INTO big SELECT x, printf('%080d', x) FROM c;
                """,
            database: db
        )
    }

    /// Checks that LEADER on the only voter answers with the node itself, and CLIENT with WELCOME.
    @Test func leader_answersItself() throws {
        let leader = try #require(try connection.leader())
        #expect(leader.id == 1)
        #expect(leader.address == node.address)
        #expect(try connection.registerClient(id: 7) == 15_000)
    }

    /// Checks that CLUSTER lists the node as the one voter.
    @Test func cluster_listsTheNode() throws {
        #expect(try connection.cluster() == [DqliteNodeInfo(id: 1, address: node.address, role: .voter)])
    }

    /// Checks that every value type goes in through EXEC parameters and comes back from QUERY exactly.
    @Test func values_roundTripExactly() throws {
        _ = try connection.exec(sql: "CREATE TABLE v(i INTEGER, f REAL, s TEXT, b BLOB, n)", database: db)
        let insert = try connection.prepare("INSERT INTO v VALUES (?, ?, ?, ?, ?)", database: db)
        #expect(insert.parameterCount == 5)
        let rows: [[DqliteValue]] = [
            [.integer(.min), .float(0.1), .text("héllo 🌍 世界"), .blob([0, 1, 0, 255, 0, 0]), .null],
            [.integer(.max), .float(1.5), .text(""), .blob([]), .float(-0.0)],
            [.integer(0), .float(.greatestFiniteMagnitude), .text("12345678"), .blob([0]), .text("x")],
            [
                .integer(-1), .float(.leastNonzeroMagnitude), .text("a'b\"c\\"), .blob([1, 2, 3, 4, 5, 6, 7, 8, 9]),
                .float(2.5),
            ],
        ]
        for (index, row) in rows.enumerated() {
            let result = try connection.exec(insert, parameters: row)
            #expect(result == DqliteExecResult(lastInsertID: Int64(index + 1), rowsAffected: 1))
        }
        try connection.finalize(insert)
        let select = try connection.prepare("SELECT i, f, s, b, n FROM v WHERE rowid >= ? ORDER BY rowid", database: db)
        let result = try connection.query(select, parameters: [.integer(1)])
        #expect(result.columns == ["i", "f", "s", "b", "n"])
        #expect(!result.hasMore)
        #expect(result.rows == rows)
        for (sent, received) in zip(rows, result.rows) {
            for column in [1, 4] {
                if case .float(let a) = sent[column], case .float(let b) = received[column] {
                    #expect(a.bitPattern == b.bitPattern)
                }
            }
        }
        let types = try connection.query(
            sql: "SELECT typeof(i), typeof(f), typeof(s), typeof(b), typeof(n) FROM v",
            database: db
        )
        #expect(types.rows.first == [.text("integer"), .text("real"), .text("text"), .text("blob"), .text("null")])
        #expect(types.rows.dropFirst().first?.last == .text("real"))
    }

    /// Checks the protocol's special types: DATETIME and BOOLEAN columns come back as UNIXTIME, ISO8601 and
    /// BOOLEAN; BOOLEAN and ISO8601 parameters are stored as INTEGER and TEXT (an expression has no declared type,
    /// so `flag + 0` comes back as a plain INTEGER).
    @Test func specialTypes_followDeclaredColumnTypes() throws {
        _ = try connection.exec(sql: "CREATE TABLE d(at DATETIME, flag BOOLEAN)", database: db)
        _ = try connection.exec(
            sql: "INSERT INTO d VALUES (?, ?), (1700000000, 0), (NULL, NULL)",
            parameters: [.iso8601("2024-02-29 12:00:00"), .boolean(true)],
            database: db
        )
        let rows = try connection.query(sql: "SELECT at, flag FROM d ORDER BY rowid", database: db)
        #expect(
            rows.rows == [
                [.iso8601("2024-02-29 12:00:00"), .boolean(true)],
                [.unixTime(1_700_000_000), .boolean(false)],
                [.iso8601(""), .boolean(false)],
            ]
        )
        let stored = try connection.query(
            sql: "SELECT typeof(at), typeof(flag), flag + 0 FROM d WHERE rowid = 1",
            database: db
        )
        #expect(stored.rows == [[.text("text"), .text("integer"), .integer(1)]])
    }

    /// Checks a result set the server sends in several ROWS parts: the parts, then the gathered rows in order.
    @Test func query_spanningSeveralRowsParts() throws {
        try makeBigTable(rows: 3000)
        var parts = 0
        var count = 0
        var response = try connection.send(
            .querySQL(database: db, sql: "SELECT n, pad FROM big ORDER BY n", parameters: [])
        )
        while case .rows(let part) = response {
            parts += 1
            count += part.rows.count
            #expect(part.columns == ["n", "pad"])
            guard part.hasMore else { break }
            response = try connection.nextResponse()
        }
        #expect(parts > 10)
        #expect(count == 3000)
        let all = try connection.query(sql: "SELECT n, pad FROM big ORDER BY n", database: db)
        #expect(all.rows.count == 3000)
        #expect(all.rows.enumerated().allSatisfy { index, row in row[0] == .integer(Int64(index + 1)) })
        #expect(all.rows.last == [.integer(3000), .text(String(repeating: "0", count: 76) + "3000")])
        // The connection is in step after the multi-part answer.
        #expect(try connection.query(sql: "SELECT count(*) FROM big", database: db).rows == [[.integer(3000)]])
    }

    /// Checks queries sent in one write (`collectRows([…])`): each answer comes back in order, a multi-part one
    /// whole, a FAILURE as that request's result without breaking the others, and the connection stays in step.
    @Test func pipelinedQueries_answerInOrder() throws {
        try makeBigTable(rows: 2000)
        let count = try connection.prepare("SELECT count(*) FROM big WHERE n <= ?", database: db)
        let results = try connection.collectRows([
            .querySQL(database: db, sql: "PRAGMA schema_version", parameters: []),
            .querySQL(database: db, sql: "SELECT n, pad FROM big ORDER BY n", parameters: []),
            .querySQL(database: db, sql: "SELECT * FROM nowhere", parameters: []),
            .query(database: db, statement: count.id, parameters: [.integer(10)]),
        ])
        #expect(results.count == 4)
        #expect(try results[0].get().columns == ["schema_version"])
        let all = try results[1].get()
        #expect(all.rows.count == 2000)
        #expect(all.rows.last?.first == .integer(2000))
        guard case .failure(let missing) = results[2] else {
            Issue.record("the query of a missing table answered rows")
            return
        }
        #expect(missing.kind == .failure)
        #expect(missing.message == "no such table: nowhere")
        #expect(try results[3].get().rows == [[.integer(10)]])
        #expect(connection.isOpen)
        #expect(try connection.query(count, parameters: [.integer(5)]).rows == [[.integer(5)]])
    }

    /// Checks that messages larger than one receive (32 KiB) arrive whole, in both directions: a 300,000-byte text and
    /// blob sent as parameters, then read back together in one row, then a small answer right after on the same
    /// connection (the receive buffer keeps nothing of the large one).
    @Test func largeValues_crossSeveralReceives() throws {
        _ = try connection.exec(sql: "CREATE TABLE large(t TEXT, b BLOB)", database: db)
        let text = String((0..<300_000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        let blob = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        _ = try connection.exec(
            sql: "INSERT INTO large VALUES (?, ?)",
            parameters: [.text(text), .blob(blob)],
            database: db
        )
        let rows = try connection.query(sql: "SELECT t, b, length(t) FROM large", database: db)
        #expect(rows.rows == [[.text(text), .blob(blob), .integer(300_000)]])
        #expect(try connection.query(sql: "SELECT 1", database: db).rows == [[.integer(1)]])
    }

    /// Checks that a result set over the limit is refused and closes the connection (the server keeps sending).
    @Test func query_overTheResultLimit_closesTheConnection() throws {
        try makeBigTable(rows: 2000)
        let small = DqliteConnection.Options(requestTimeout: .seconds(15), limits: DqliteLimits(maxResultBytes: 16_384))
        let limited = try DqliteConnection(address: node.address, options: small)
        let limitedDB = try limited.open("test.db")
        let error = dqliteError { try limited.query(sql: "SELECT pad FROM big", database: limitedDB) }
        #expect(error?.kind == .tooLarge)
        #expect(!limited.isOpen)
        #expect(dqliteError { try limited.leader() }?.kind == .connectionClosed)
    }

    /// Checks that failing statements answer FAILURE with SQLite's code and message, never a bound value, and the
    /// connection stays usable.
    @Test func failingStatement_isFailureWithSQLiteCode() throws {
        let missing = dqliteError { try connection.exec(sql: "INSERT INTO missing VALUES (1)", database: db) }
        #expect(missing?.kind == .failure)
        #expect(missing?.code == 1)
        #expect(missing?.message == "no such table: missing")
        #expect(missing?.sql == "INSERT INTO missing VALUES (1)")

        _ = try connection.exec(sql: "CREATE TABLE u(x TEXT UNIQUE)", database: db)
        _ = try connection.exec(sql: "INSERT INTO u VALUES (?)", parameters: [.text("secret-value")], database: db)
        let duplicate = dqliteError {
            try connection.exec(sql: "INSERT INTO u VALUES (?)", parameters: [.text("secret-value")], database: db)
        }
        #expect(duplicate?.code == 2067)
        #expect(duplicate?.message == "UNIQUE constraint failed: u.x")
        #expect(duplicate.map { !"\($0)".contains("secret-value") } == true)

        let syntax = dqliteError { try connection.prepare("SELEC 1", database: db) }
        #expect(syntax?.code == 1)
        #expect(syntax?.message.contains("syntax error") == true)
        let query = dqliteError { try connection.query(sql: "SELECT * FROM nowhere", database: db) }
        #expect(query?.kind == .failure)
        #expect(query?.message == "no such table: nowhere")

        #expect(connection.isOpen)
        #expect(try connection.query(sql: "SELECT count(*) FROM u", database: db).rows == [[.integer(1)]])
    }

    /// Checks PREPARE/FINALIZE: a finalized statement is gone (SQLITE_NOTFOUND), and a second OPEN is refused.
    @Test func statements_finalizeAndSecondOpen() throws {
        let statement = try connection.prepare("SELECT 1", database: db)
        #expect(try connection.query(statement).rows == [[.integer(1)]])
        try connection.finalize(statement)
        let gone = dqliteError { try connection.query(statement) }
        #expect(gone?.code == 12)
        #expect(gone?.message == "no statement with the given id")
        let second = dqliteError { try connection.open("other.db") }
        #expect(second?.code == 5)
        try connection.interrupt(database: db)
        #expect(try connection.query(sql: "SELECT 2", database: db).rows == [[.integer(2)]])
    }

    /// Checks that DUMP returns the database and its WAL, which SQLite opens with the rows written.
    @Test func dump_returnsDatabaseFiles() throws {
        _ = try connection.exec(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('dumped'), (2)", database: db)
        let files = try connection.dump("test.db")
        #expect(files.map(\.name) == ["test.db", "test.db-wal"])
        #expect(files[0].bytes.starts(with: Array("SQLite format 3\u{0}".utf8)))
        let directory = try TemporaryDirectory()
        for file in files {
            try #require(
                FileManager.default.createFile(atPath: directory.path + "/" + file.name, contents: Data(file.bytes))
            )
        }
        #expect(
            try sqliteRows(path: directory.path + "/test.db", sql: "SELECT x FROM t ORDER BY rowid") == ["dumped", "2"]
        )
    }

    /// Checks that a server that never answers costs the request timeout (not the 60 s connect timeout: the suite's
    /// time limit ends a hang), then the connection is closed.
    @Test func silentServer_timesOut() throws {
        let (fd, port) = try LoopbackSocket.bound(listening: true)
        defer { close(fd) }
        let options = DqliteConnection.Options(connectTimeout: .seconds(60), requestTimeout: .milliseconds(200))
        let silent = try DqliteConnection(address: "127.0.0.1:\(port)", options: options)
        let started = ContinuousClock.now
        #expect(dqliteError { try silent.leader() }?.kind == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(!silent.isOpen)
    }

    /// Checks that a refused connection and a malformed address are typed errors.
    @Test func connect_errors() throws {
        let port = try freeLoopbackPort()
        let refused = dqliteError { try DqliteConnection(address: "127.0.0.1:\(port)", options: testOptions) }
        #expect(refused?.kind == .io)
        #expect(refused?.code == UInt64(ECONNREFUSED))
        #expect(
            dqliteError { try DqliteConnection(address: "nowhere", options: testOptions) }?.kind == .invalidArgument
        )
        #expect(
            dqliteError { try DqliteConnection(address: "example.com:9001", options: testOptions) }?.kind
                == .invalidArgument
        )
    }

    private func sqliteRows(path: String, sql: String) throws -> [String] {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            throw WaitTimeout()
        }
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            values.append(String(cString: sqlite3_column_text(statement, 0)))
        }
        return values
    }
}
