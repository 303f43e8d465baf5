import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// Group commit: failures that only show at COMMIT, a failing COMMIT, a time limit reached while running, nested
/// savepoints of the engine API, and the switch that turns grouping off.
@Suite struct GroupCommitFailureTests {
    /// The policy refuses `PRAGMA foreign_keys` to clients: the test sets it with the authorizer off, then puts the
    /// writer's policy back.
    private static func enableForeignKeys(_ db: Database) throws {
        db.setAuthorizer(nil)
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        SQLPolicy.install(on: db, role: .writer)
    }

    /// Checks that a deferred foreign key violation fails only the request that made it (409, as its own COMMIT
    /// would have), for /update and /transaction, while the rest of the group commits.
    @Test func groupCommit_deferredForeignKeyViolationFailsOnlyItsRequest() throws {
        let fixture = try ServiceFixture()
        try fixture.pool.write { db in
            try Self.enableForeignKeys(db)
            try db.executeScript(
                """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY,
                    parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                INSERT INTO parent VALUES (1);
                """
            )
        }
        let responses = try fixture.sendInOneGroup([
            ("/update", #"{"sql": "INSERT INTO child VALUES (10, 99)"}"#),
            (
                "/transaction",
                #"{"statements": [{"sql": "INSERT INTO child VALUES (11, 98)"}, {"sql": "INSERT INTO parent VALUES (2)"}]}"#
            ),
            (
                "/transaction",
                #"{"statements": [{"sql": "INSERT INTO child VALUES (12, 3)"}, {"sql": "INSERT INTO parent VALUES (3)"}]}"#
            ),
            ("/update", #"{"sql": "INSERT INTO child VALUES (13, 1)"}"#),
        ])
        #expect(responses.map(\.status.code) == [409, 409, 200, 200])
        #expect(try errorObject(responses[0])?["code"] == .string("SQLITE_CONSTRAINT_FOREIGNKEY"))
        #expect(try errorObject(responses[1])?["code"] == .string("SQLITE_CONSTRAINT_FOREIGNKEY"))
        #expect(try errorObject(responses[1])?["rolled_back"] == .bool(true))
        #expect(
            try fixture.scalar("SELECT group_concat(id) FROM (SELECT id FROM child ORDER BY id)") == .string("12,13")
        )
        #expect(
            try fixture.scalar("SELECT group_concat(id) FROM (SELECT id FROM parent ORDER BY id)") == .string("1,3")
        )
    }

    /// Checks that when the group's COMMIT fails (here a deferred foreign key violation added just before it, past
    /// every request's own check), every request of the group gets the error with rolled_back true, nothing of the
    /// group is in the database, and the next group is clean.
    @Test func groupCommit_failingCommitFailsEveryRequestOfTheGroup() throws {
        let fixture = try ServiceFixture()
        try fixture.pool.write { db in
            try Self.enableForeignKeys(db)
            try db.executeScript(
                """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY,
                    parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                CREATE TABLE t(k TEXT);
                """
            )
        }
        fixture.service.groupCommitter.beforeCommit.withLock { hook in
            hook = StoredClosure { db in try? db.execute(sql: "INSERT INTO child VALUES (1, 42)") }
        }
        let responses = try fixture.sendInOneGroup([
            ("/update", #"{"sql": "INSERT INTO t VALUES ('a')"}"#),
            ("/batch", #"{"statements": [{"sql": "INSERT INTO t VALUES ('b')"}]}"#),
            ("/transaction", #"{"statements": [{"sql": "INSERT INTO t VALUES ('c')"}]}"#),
        ])
        for response in responses {
            #expect(response.status.code == 409)
            #expect(try errorObject(response)?["code"] == .string("SQLITE_CONSTRAINT_FOREIGNKEY"))
            #expect(try errorObject(response)?["rolled_back"] == .bool(true))
        }
        fixture.service.groupCommitter.beforeCommit.withLock { $0 = nil }
        #expect(try fixture.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(try fixture.scalar("SELECT count(*) FROM child") == .integer(0))
        #expect(fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES ('next')"}"#).status.code == 200)
        #expect(try fixture.pool.write { db in db.isInTransaction } == false)
        #expect(try fixture.scalar("SELECT group_concat(k) FROM t") == .string("next"))
    }

    /// Checks that a request interrupted by its time limit while it writes (SQLite then rolls the whole group's
    /// transaction back) fails alone with TIMEOUT, and that the requests that ran before it in the group are run
    /// again and committed.
    @Test func groupCommit_timeoutWhileRunningUndoesOnlyItsRequest() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(k TEXT)"}"#)
        let slowInsert =
            #"{"sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "#
            + #"INSERT INTO t SELECT 'slow' FROM n", "timeout_ms": 300}"#
        let responses = try fixture.sendInOneGroup([
            ("/update", #"{"sql": "INSERT INTO t VALUES ('one')"}"#),
            ("/update", slowInsert),
            ("/batch", #"{"statements": [{"sql": "INSERT INTO t VALUES ('two')"}]}"#),
            ("/update", slowInsert),
            ("/transaction", #"{"statements": [{"sql": "INSERT INTO t VALUES ('three')"}]}"#),
        ])
        #expect(responses.map(\.status.code) == [200, 400, 200, 400, 200])
        #expect(try errorObject(responses[1])?["code"] == .string("TIMEOUT"))
        #expect(
            try fixture.scalar("SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY k)") == .string("one,three,two")
        )
    }

    /// Checks that a body using the engine's savepoint API (as the table endpoints do) can nest savepoints inside its
    /// request's savepoint, and that a body that throws has all its changes undone without affecting the group.
    @Test func groupCommit_nestedSavepointsOfTheEngineAPI() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(k TEXT)"}"#)
        let service = fixture.service
        let value = try service.onWriter(metrics: nil) { db throws(APIError) -> Int in
            do {
                #expect(db.isInTransaction)
                try db.inSavepoint { db in
                    try db.execute(sql: "INSERT INTO t VALUES ('outer')")
                    _ = try? db.inSavepoint { db in
                        try db.execute(sql: "INSERT INTO t VALUES ('inner undone')")
                        throw FixtureError("undo the inner savepoint")
                    }
                }
            } catch {
                throw APIError(error, db: db)
            }
            return 7
        }
        #expect(value == 7)
        #expect(throws: APIError.self) {
            try service.onWriter(metrics: nil) { db throws(APIError) in
                do {
                    try db.inSavepoint { db in try db.execute(sql: "INSERT INTO t VALUES ('thrown away')") }
                    try db.execute(sql: "INSERT INTO t VALUES ('thrown away too')")
                } catch {
                    throw APIError(error, db: db)
                }
                throw APIError.invalidRequest("the body fails")
            }
        }
        #expect(try fixture.scalar("SELECT group_concat(k) FROM t") == .string("outer"))
    }

    /// Checks that with group commit off writes still work, each in autocommit mode, and no group is counted.
    @Test func groupCommit_offRunsEachWriteInAutocommit() throws {
        var options = ServiceOptions()
        options.groupCommit.isEnabled = false
        let fixture = try ServiceFixture(options: options)
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(k TEXT)"}"#)
        let inTransaction = try fixture.service.onWriter(metrics: nil) { db throws(APIError) in db.isInTransaction }
        #expect(!inTransaction)
        let response = fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES ('a')"}"#)
        #expect(response.status.code == 200)
        #expect(try fixture.groupCommitCounts().groups == 0)
        #expect(try fixture.scalar("SELECT count(*) FROM t") == .integer(1))
    }
}
