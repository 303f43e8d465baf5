import DqliteClient
import Testing

@testable import DqliteCluster

/// Statements kept prepared on each leader connection (`prepared: true`): PREPARE once, then QUERY or EXEC by the
/// statement's id, on a real one-node cluster.
@Suite(.timeLimit(.minutes(2)))
struct ClusterClientPreparedTests {
    private func cluster() throws -> (TestMember, ClusterClient) {
        let member = try TestMember(id: 1)
        let client = ClusterClient(members: [member.address], options: clientOptions())
        _ = try client.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        _ = try client.exec("INSERT INTO t(v) VALUES ('a'), ('b')")
        return (member, client)
    }

    /// Checks that ten reads of one statement cost eleven round trips (one PREPARE, ten QUERYs) and answer as ten
    /// unprepared ones, which cost ten.
    @Test func aStatement_isPreparedOncePerConnection() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        let before = client.statistics.roundTrips
        for id in [1, 2, 1, 2, 1, 2, 1, 2, 1, 2] {
            let rows = try client.query(
                "SELECT v FROM t WHERE id = ?",
                parameters: [.integer(Int64(id))],
                prepared: true
            )
            #expect(rows.rows == [[.text(id == 1 ? "a" : "b")]])
        }
        #expect(client.statistics.roundTrips - before == 11)
        let unprepared = client.statistics.roundTrips
        for _ in 0..<10 {
            #expect(try client.query("SELECT v FROM t WHERE id = 1").rows == [[.text("a")]])
        }
        #expect(client.statistics.roundTrips - unprepared == 10)
    }

    /// Checks a read sent after a probe in one write (`query(_:after:)`): both answers, one round trip once both
    /// statements are kept, and the probe's FAILURE thrown before the read's.
    @Test func aReadAfterAProbe_isOneRoundTrip() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        let version = try client.query("PRAGMA schema_version").rows
        let first = try client.query(
            "SELECT * FROM t WHERE id = ?",
            parameters: [.integer(2)],
            after: "PRAGMA schema_version"
        )
        #expect(first.probe.rows == version)
        #expect(first.rows.columns == ["id", "v"])
        #expect(first.rows.rows == [[.integer(2), .text("b")]])
        let before = client.statistics.roundTrips
        for id in 1...5 {
            let answer = try client.query(
                "SELECT v FROM t WHERE id = ?",
                parameters: [.integer(Int64(id % 2 + 1))],
                after: "PRAGMA schema_version"
            )
            #expect(answer.probe.rows == version)
            #expect(answer.rows.rows == [[.text(id % 2 == 0 ? "a" : "b")]])
        }
        // Five reads: one PREPARE for the new statement (the probe is kept), then one round trip each.
        #expect(client.statistics.roundTrips - before == 6)
        let probeFails = clusterError { try client.query("SELECT v FROM t", after: "SELECT * FROM nowhere") }
        #expect(probeFails?.message.contains("no such table: nowhere") == true)
        let readFails = clusterError { try client.query("SELECT * FROM nowhere", after: "PRAGMA schema_version") }
        #expect(readFails?.message.contains("no such table: nowhere") == true)
        #expect(try client.query("SELECT count(*) FROM t", after: "PRAGMA schema_version").rows.rows == [[.integer(2)]])
    }

    /// Checks reads sent together (`query(pipelined:)`): one round trip once their statements are kept, each
    /// answer its own and in order, a statement the leader refuses to prepare and one failing as it runs answered
    /// as failures while the others still run, and more than `pipelineLimit` reads refused before anything is sent.
    @Test func pipelinedReads_areOneRoundTrip_andFailAlone() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        let reads = (0..<10).map {
            ClusterRead("SELECT v FROM t WHERE id = ?", parameters: [.integer(Int64($0 % 2 + 1))])
        }
        _ = try client.query(pipelined: reads)
        let before = client.statistics.roundTrips
        let results = try client.query(pipelined: reads)
        #expect(client.statistics.roundTrips - before == 1)
        for (index, result) in results.enumerated() {
            #expect(try result.get().rows == [[.text(index % 2 == 0 ? "a" : "b")]])
        }

        let mixed = try client.query(
            pipelined: [
                ClusterRead("SELECT v FROM t WHERE id = 1"),
                ClusterRead("SELECT * FROM nowhere"),
                ClusterRead("SELECT abs(-9223372036854775807 - 1)"),
                ClusterRead("SELECT count(*) FROM t"),
            ]
        )
        #expect(try mixed[0].get().rows == [[.text("a")]])
        #expect(clusterError { try mixed[1].get() }?.message.contains("no such table: nowhere") == true)
        #expect(clusterError { try mixed[2].get() }?.message.contains("integer overflow") == true)
        #expect(try mixed[3].get().rows == [[.integer(2)]])

        let tooMany = Array(repeating: ClusterRead("SELECT 1"), count: ClusterClient.pipelineLimit + 1)
        let refused = clusterError { try client.query(pipelined: tooMany) }
        #expect(refused?.kind == .invalidArgument)
        #expect(try client.query(pipelined: []).isEmpty)
    }

    /// Checks that a kept statement holds no snapshot between its uses: after each write (through another client,
    /// so on another connection) the same kept read sees the new row.
    @Test func aKeptRead_seesEveryLaterWrite() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        let writer = ClusterClient(members: [member.address], options: clientOptions())
        for expected in 3...8 {
            _ = try writer.exec("INSERT INTO t(v) VALUES ('n')")
            let rows = try client.query("SELECT count(*) FROM t", prepared: true)
            #expect(rows.rows == [[.integer(Int64(expected))]])
        }
    }

    /// Checks that a kept statement follows the schema: a column added is in `SELECT *`, a dropped table is "no
    /// such table", and once it is created again with other columns the statement answers in its layout. dqlite may
    /// answer a statement once more in the layout before a change (measured: the first use of a kept `SELECT *`
    /// after `ALTER TABLE` did; so may QUERY_SQL after another node's change), so each is asked twice: the second
    /// answer must be the new one. (The service compares a read's columns with its copy of the schema and asks again,
    /// see `ClusterStorage.query`.)
    @Test func aKeptStatement_followsSchemaChanges() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        let select = "SELECT * FROM t ORDER BY 1"
        #expect(try client.query(select, prepared: true).columns == ["id", "v"])
        _ = try client.exec("ALTER TABLE t ADD COLUMN w INTEGER")
        _ = try? client.query(select, prepared: true)
        #expect(try client.query(select, prepared: true).columns == ["id", "v", "w"])
        _ = try client.exec("DROP TABLE t")
        _ = try? client.query(select, prepared: true)
        let missing = clusterError { try client.query(select, prepared: true) }
        #expect(missing?.kind == .failure)
        #expect(missing?.message.contains("no such table") == true, "\(String(describing: missing))")
        _ = try client.exec("CREATE TABLE t(x TEXT)")
        _ = try client.exec("INSERT INTO t VALUES ('new')")
        _ = try? client.query(select, prepared: true)
        let rows = try client.query(select, prepared: true)
        #expect(rows.columns == ["x"])
        #expect(rows.rows == [[.text("new")]])
    }

    /// Checks prepared writes and reads inside a transaction, a failing one among them (the transaction goes on), and
    /// that what was rolled back is gone.
    @Test func preparedStatements_inATransaction() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        _ = try client.exec("CREATE TABLE u(k TEXT UNIQUE)")
        let inserted = try client.transaction(immediate: true) { transaction in
            for key in ["p", "q", "r"] {
                _ = try transaction.exec("INSERT INTO u(k) VALUES (?)", parameters: [.text(key)], prepared: true)
            }
            let duplicate = clusterError {
                try transaction.exec("INSERT INTO u(k) VALUES (?)", parameters: [.text("p")], prepared: true)
            }
            #expect(duplicate?.kind == .failure)
            #expect(transaction.isActive)
            return try transaction.query("SELECT count(*) FROM u", prepared: true).rows
        }
        #expect(inserted == [[.integer(3)]])
        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try client.transaction(immediate: true) { transaction in
                _ = try transaction.exec("INSERT INTO u(k) VALUES (?)", parameters: [.text("s")], prepared: true)
                throw Undo()
            }
        }
        #expect(try client.query("SELECT group_concat(k) FROM u", prepared: true).rows == [[.text("p,q,r")]])
    }

    /// Checks that more statements than one connection keeps (``PooledConnection/statementLimit``) all answer right,
    /// the oldest finalized to make room.
    @Test func moreStatementsThanTheLimit_allAnswer() throws {
        let (member, client) = try cluster()
        defer { _ = member }
        for round in 0..<2 {
            for value in 0..<(PooledConnection.statementLimit + 10) {
                let rows = try client.query("SELECT \(value) + ?", parameters: [.integer(Int64(round))], prepared: true)
                #expect(rows.rows == [[.integer(Int64(value + round))]])
            }
        }
    }
}
