import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// A failing statement keeps nothing, under SQLite's FAIL conflict resolution too (`OR FAIL`, `ON CONFLICT FAIL`,
/// `RAISE(FAIL, …)`, which keep what a statement did before it failed), whether the request runs alone in
/// autocommit mode, in a group, or with group commit off: before, a lone `/update` kept the rows it inserted before
/// the failing one (and committed them), while the same request in a group kept nothing.
@Suite struct FailResolutionTests {
    /// How the request under test reaches the writer.
    enum Placement: CaseIterable, CustomTestStringConvertible {
        /// Alone, with group commit on: a group of one, which runs in autocommit mode.
        case alone
        /// In a group with another write.
        case grouped
        /// With group commit off: in autocommit mode.
        case groupCommitOff

        var testDescription: String { "\(self)" }
    }

    /// A table whose unique `k` already holds 'taken'.
    private static let takenKeySchema = "CREATE TABLE t(k TEXT UNIQUE); INSERT INTO t VALUES ('taken')"

    /// The fixture for `placement`, with `schema` run on its writer.
    private static func fixture(_ placement: Placement, schema: String) throws -> ServiceFixture {
        var options = ServiceOptions()
        options.groupCommit.isEnabled = placement != .groupCommitOff
        let fixture = try ServiceFixture(options: options)
        try fixture.pool.write { db in
            db.setAuthorizer(nil)
            defer { SQLPolicy.install(on: db, role: .writer) }
            try db.executeScript(schema + "; CREATE TABLE other(x)")
        }
        return fixture
    }

    /// Sends `json` to `path` as `placement` says; returns its response.
    private static func send(
        _ path: String,
        _ json: String,
        _ placement: Placement,
        on fixture: ServiceFixture
    ) throws -> HTTPResponse {
        guard placement == .grouped else { return fixture.send("POST", path, json: json) }
        let responses = try fixture.sendInOneGroup([
            ("/update", #"{"sql": "INSERT INTO other VALUES (1)"}"#),
            (path, json),
        ])
        #expect(responses[0].status.code == 200)
        return responses[1]
    }

    /// Checks that `INSERT OR FAIL` of two rows, the second taken, is 409 and keeps neither.
    @Test(arguments: Placement.allCases)
    func orFailStatement_keepsNothing(_ placement: Placement) throws {
        let fixture = try Self.fixture(placement, schema: Self.takenKeySchema)
        let response = try Self.send(
            "/update",
            #"{"sql": "INSERT OR FAIL INTO t(k) VALUES (?), (?)", "params": ["f1", "taken"]}"#,
            placement,
            on: fixture
        )
        #expect(response.status.code == 409)
        #expect(try errorObject(response)?["code"] == .string("SQLITE_CONSTRAINT_UNIQUE"))
        #expect(try fixture.scalar("SELECT group_concat(k) FROM t") == .string("taken"))
    }

    /// Checks that a column's `ON CONFLICT FAIL` (the statement's text says nothing of it) keeps nothing either.
    @Test(arguments: Placement.allCases)
    func failClauseInTheSchema_keepsNothing(_ placement: Placement) throws {
        let fixture = try Self.fixture(placement, schema: "CREATE TABLE u(k TEXT UNIQUE ON CONFLICT FAIL)")
        let response = try Self.send(
            "/update",
            #"{"sql": "INSERT INTO u(k) VALUES ('a'), ('b'), ('a')"}"#,
            placement,
            on: fixture
        )
        #expect(response.status.code == 409)
        #expect(try fixture.scalar("SELECT count(*) FROM u") == .integer(0))
    }

    /// Checks that a trigger's `RAISE(FAIL, …)` on the third row keeps none of the three.
    @Test(arguments: Placement.allCases)
    func raiseFailInATrigger_keepsNothing(_ placement: Placement) throws {
        let fixture = try Self.fixture(
            placement,
            schema: """
                CREATE TABLE v(x INTEGER);
                CREATE TRIGGER v_three BEFORE INSERT ON v WHEN new.x = 3 BEGIN SELECT RAISE(FAIL, 'no three'); END
                """
        )
        let response = try Self.send(
            "/update",
            #"{"sql": "INSERT INTO v VALUES (1), (2), (3)"}"#,
            placement,
            on: fixture
        )
        #expect(response.status.code == 409)
        #expect(try errorObject(response)?["message"] == .string("no three"))
        #expect(try fixture.scalar("SELECT count(*) FROM v") == .integer(0))
        #expect(
            try Self.send("/update", #"{"sql": "INSERT INTO v VALUES (4)"}"#, placement, on: fixture).status.code == 200
        )
        #expect(try fixture.scalar("SELECT count(*) FROM v") == .integer(1))
    }

    /// Checks that in a `/batch` (each statement committing on its own) the statement before the failing one stays,
    /// and the failing `OR FAIL` statement (listed, or in a script) keeps nothing.
    @Test(arguments: Placement.allCases)
    func batchStatement_orFailKeepsNothingOfItself(_ placement: Placement) throws {
        let fixture = try Self.fixture(placement, schema: Self.takenKeySchema)
        let listed = try Self.send(
            "/batch",
            #"{"statements": [{"sql": "INSERT INTO t VALUES ('b1')"}, {"sql": "INSERT OR FAIL INTO t VALUES ('f1'), ('taken')"}]}"#,
            placement,
            on: fixture
        )
        #expect(listed.status.code == 409)
        #expect(try errorObject(listed)?["statement_index"] == .integer(1))
        let script = try Self.send(
            "/batch",
            #"{"script": "INSERT INTO t VALUES ('b2'); INSERT OR FAIL INTO t VALUES ('f2'), ('taken');"}"#,
            placement,
            on: fixture
        )
        #expect(script.status.code == 409)
        #expect(
            try fixture.scalar("SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY k)") == .string("b1,b2,taken")
        )
    }

    /// Checks which texts count as mentioning FAIL: any ASCII case, anywhere (a name too), and nothing else.
    @Test func mentionsFail_matchesTheWordInAnyCase() {
        #expect(LocalWriteSession.mentionsFail("INSERT OR FAIL INTO t VALUES (1)"))
        #expect(LocalWriteSession.mentionsFail("insert or fail into t values (1)"))
        #expect(LocalWriteSession.mentionsFail("UPDATE failures SET n = 1"))
        #expect(LocalWriteSession.mentionsFail("SELECT 'ffaIL'"))
        #expect(!LocalWriteSession.mentionsFail("INSERT INTO t VALUES ('fai', 'l')"))
        #expect(!LocalWriteSession.mentionsFail(""))
        #expect(LocalWriteSession.mentionsFail("FaIl"))
        #expect(LocalWriteSession.mentionsFail("SELECT 1 -- fail"))
        #expect(!LocalWriteSession.mentionsFail("fai"))
        #expect(!LocalWriteSession.mentionsFail("SELECT 'f\u{e0}il', 'FAI\u{cc}'"))
    }
}
