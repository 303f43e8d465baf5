import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// Group commit: several requests forced into one group (the writer is held until all are queued) keep exactly
/// the results and the failures they would have alone.
@Suite struct GroupCommitIsolationTests {
    private static func fixture() throws -> ServiceFixture {
        let fixture = try ServiceFixture()
        fixture.send(
            "POST",
            "/batch",
            json: #"{"statements": [{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT UNIQUE)"}, "#
                + #"{"sql": "INSERT INTO t(k) VALUES ('taken')"}]}"#
        )
        return fixture
    }

    /// Checks that /update results (changes, last_insert_rowid, RETURNING) are per request, that a constraint
    /// failure fails only its request, and that all of them were one group with one COMMIT.
    @Test func groupCommit_updatesInOneGroupKeepTheirOwnResults() throws {
        let fixture = try Self.fixture()
        let before = try fixture.groupCommitCounts()
        let responses = try fixture.sendInOneGroup([
            ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('a')"}"#),
            ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('b') RETURNING k", "shape": "arrays"}"#),
            ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('taken')"}"#),
            ("/update", #"{"sql": "UPDATE t SET k = k WHERE k = 'taken'"}"#),
        ])
        #expect(responses.map(\.status.code) == [200, 200, 409, 200])
        let first = try bodyObject(responses[0])
        #expect(first["changes"] == .integer(1))
        guard case .integer(let rowA)? = first["last_insert_rowid"] else {
            Issue.record("no rowid for the first insert")
            return
        }
        let second = try bodyObject(responses[1])
        #expect(second["rows"] == .array([.array([.string("b")])]))
        #expect(try errorObject(responses[2])?["code"] == .string("SQLITE_CONSTRAINT_UNIQUE"))
        let update = try bodyObject(responses[3])
        #expect(update["changes"] == .integer(1))
        #expect(update["last_insert_rowid"] == .null)
        #expect(try fixture.scalar("SELECT k FROM t WHERE id = \(rowA)") == .string("a"))
        #expect(try fixture.scalar("SELECT count(*) FROM t") == .integer(3))
        let after = try fixture.groupCommitCounts()
        #expect(after.groups - before.groups == 1)
        #expect(after.requests - before.requests == 4)
    }

    /// Checks that a failing /transaction rolls back only itself, that a /batch stops at its own first failure and
    /// keeps its earlier statements, and that continue_on_error undoes only the failing statement — all in one group.
    @Test func groupCommit_transactionAndBatchFailuresStayTheirOwn() throws {
        let fixture = try Self.fixture()
        let responses = try fixture.sendInOneGroup([
            (
                "/transaction",
                #"{"statements": [{"sql": "INSERT INTO t(k) VALUES ('tx1')"}, "#
                    + #"{"sql": "INSERT INTO t(k) VALUES ('taken')"}]}"#
            ),
            (
                "/batch",
                #"{"statements": [{"sql": "INSERT INTO t(k) VALUES ('b1')"}, "#
                    + #"{"sql": "INSERT INTO t(k) VALUES ('taken')"}, {"sql": "INSERT INTO t(k) VALUES ('b3')"}]}"#
            ),
            (
                "/batch",
                #"{"continue_on_error": true, "statements": [{"sql": "INSERT INTO t(k) VALUES ('c1')"}, "#
                    + #"{"sql": "INSERT INTO t(k) VALUES ('taken')"}, {"sql": "INSERT INTO t(k) VALUES ('c3')"}]}"#
            ),
            ("/transaction", #"{"statements": [{"sql": "INSERT INTO t(k) VALUES ('ok')"}]}"#),
        ])
        #expect(responses.map(\.status.code) == [409, 409, 200, 200])
        let failedTransaction = try errorObject(responses[0])
        #expect(failedTransaction?["rolled_back"] == .bool(true))
        #expect(failedTransaction?["statement_index"] == .integer(1))
        let failedBatch = try errorObject(responses[1])
        #expect(failedBatch?["rolled_back"] == .bool(false))
        #expect(failedBatch?["statement_index"] == .integer(1))
        let keys = fixture.send(
            "POST",
            "/query",
            json: #"{"sql": "SELECT group_concat(k, ',') FROM (SELECT k FROM t ORDER BY k)", "shape": "arrays"}"#
        )
        #expect(
            try bodyObject(keys)["rows"] == .array([.array([.string("b1,c1,c3,ok,taken")])])
        )
    }

    /// Checks that a client cannot name the group's or another request's savepoints (reserved prefix, denied by
    /// the authorizer), while its own savepoints keep working inside a group.
    @Test func groupCommit_clientCannotReachReservedSavepoints() throws {
        let fixture = try Self.fixture()
        let responses = try fixture.sendInOneGroup([
            (
                "/transaction",
                #"{"statements": [{"sql": "INSERT INTO t(k) VALUES ('x')"}, {"sql": "RELEASE sqlited_gc_1"}]}"#
            ),
            ("/transaction", #"{"statements": [{"sql": "ROLLBACK TO \"SQLITED_GC_anything_2\""}]}"#),
            ("/transaction", #"{"statements": [{"sql": "SAVEPOINT sqlited_gc_mine"}]}"#),
            (
                "/transaction",
                #"{"statements": [{"sql": "SAVEPOINT a"}, {"sql": "INSERT INTO t(k) VALUES ('undone')"}, "#
                    + #"{"sql": "ROLLBACK TO a"}, {"sql": "INSERT INTO t(k) VALUES ('kept')"}, {"sql": "RELEASE a"}]}"#
            ),
            ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('neighbour')"}"#),
        ])
        #expect(responses.map(\.status.code) == [403, 403, 403, 200, 200])
        for response in responses[0..<3] {
            #expect(try errorObject(response)?["code"] == .string("SQLITE_AUTH"))
        }
        #expect(try fixture.scalar("SELECT count(*) FROM t WHERE k IN ('x', 'undone')") == .integer(0))
        #expect(try fixture.scalar("SELECT count(*) FROM t WHERE k IN ('kept', 'neighbour')") == .integer(2))
    }

    /// Checks that a request whose time limit ran out while it waited for its group fails with TIMEOUT without
    /// running, and does not disturb the rest of the group.
    @Test func groupCommit_requestExpiredInQueueTimesOutWithoutRunning() throws {
        let fixture = try Self.fixture()
        // The writer is freed only once the 1 ms limit (counted from when the request was decoded) has passed.
        let responses = try fixture.sendInOneGroup(
            [
                ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('late')", "timeout_ms": 1}"#),
                ("/update", #"{"sql": "INSERT INTO t(k) VALUES ('on time')"}"#),
            ],
            pauseBeforeRelease: .milliseconds(20)
        )
        #expect(responses.map(\.status.code) == [400, 200])
        #expect(try errorObject(responses[0])?["code"] == .string("TIMEOUT"))
        #expect(try fixture.scalar("SELECT count(*) FROM t WHERE k = 'late'") == .integer(0))
        #expect(try fixture.scalar("SELECT count(*) FROM t WHERE k = 'on time'") == .integer(1))
    }
}
