import Testing

@testable import SQLiteEngine

/// Scripts, statement splitting and single-statement checks.
@Suite struct ScriptTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
    }

    /// Checks that semicolons inside strings, comments, quoted names and trigger bodies do not split statements.
    @Test func executeScript_splitsWithSQLiteParser() throws {
        try db.executeScript(
            """
            -- a comment; with a semicolon
            CREATE TABLE "we;ird"(x TEXT); /* block; comment */
            CREATE TABLE log(msg TEXT);
            CREATE TRIGGER t AFTER INSERT ON "we;ird" BEGIN
                INSERT INTO log VALUES ('inserted; ' || new.x);
                INSERT INTO log VALUES ('second;');
            END;
            INSERT INTO "we;ird" VALUES ('a;b');
            """
        )
        #expect(try db.string(sql: "SELECT x FROM \"we;ird\"") == "a;b")
        #expect(
            try db.fetchAll(sql: "SELECT msg FROM log ORDER BY rowid").map { $0.string(at: 0) }
                == ["inserted; a;b", "second;"]
        )
    }

    /// Checks the per-row callback and that returning false stops the whole script.
    @Test func executeScript_rowCallbackCanStop() throws {
        var seen: [Int64] = []
        try db.executeScript(
            """
            CREATE TABLE t(x);
            SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3;
            INSERT INTO t VALUES (1);
            """
        ) { row in
            seen.append(row.int64(at: 0) ?? -1)
            return row.int64(at: 0) != 2
        }
        #expect(seen == [1, 2])
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 0)

        seen = []
        try db.executeScript("SELECT 10; INSERT INTO t VALUES (5); SELECT x FROM t") { row in
            seen.append(row.int64(at: 0) ?? -1)
            return true
        }
        #expect(seen == [10, 5])
    }

    /// Checks that a failing statement stops the script and earlier statements stay done.
    @Test func executeScript_stopsAtFirstError() throws {
        let error = try #require(
            databaseError {
                try db.executeScript(
                    "CREATE TABLE t(x); INSERT INTO t VALUES (1); INSERT INTO nope VALUES (1); INSERT INTO t VALUES (2);"
                )
            }
        )
        #expect(error.message == "no such table: nope")
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 1)
    }

    /// Checks that the statement iterator reports the index of a failing statement (syntax error in the middle).
    @Test func statements_reportIndexOfFailingStatement() throws {
        let statements = db.statements(
            in: "CREATE TABLE a(x); INSERT INTO a VALUES (1); SELEC oops; INSERT INTO a VALUES (2)"
        )
        var ran = 0
        do {
            while let statement = try statements.next() {
                while try statement.step() {}
                ran += 1
            }
            Issue.record("the syntax error was not reported")
        } catch let error as DatabaseError {
            #expect(error.kind == .sqlite)
            #expect(statements.index == 2)
        }
        #expect(ran == 2)
        #expect(try db.int64(sql: "SELECT count(*) FROM a") == 1)
    }

    /// Checks that each statement of a script is returned with its own SQL text.
    @Test func statements_haveTheirOwnSQL() throws {
        let statements = db.statements(in: "SELECT 1;  SELECT 'a;b' ; -- done")
        #expect(try statements.next()?.sql == "SELECT 1;")
        #expect(try statements.next()?.sql == "SELECT 'a;b' ;")
        #expect(try statements.next() == nil)
        #expect(statements.index == 2)
    }

    /// Checks that two statements where one is expected are rejected and nothing runs.
    @Test func makeStatement_rejectsMultipleStatements() throws {
        try db.execute(sql: "CREATE TABLE t(x)")
        let error = try #require(
            databaseError { try db.execute(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)") }
        )
        #expect(error.kind == .multipleStatements)
        let garbage = try #require(databaseError { try db.execute(sql: "INSERT INTO t VALUES (1); garbage") })
        #expect(garbage.kind == .multipleStatements)
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 0)
    }

    /// Checks that a trailing semicolon, whitespace and comments are fine after one statement.
    @Test func makeStatement_acceptsTrailingSemicolonAndComments() throws {
        #expect(try db.int64(sql: "SELECT 1;  -- trailing\n /* more */ ") == 1)
    }

    /// Checks that empty SQL or only comments is an emptyStatement error.
    @Test func makeStatement_rejectsEmptySQL() throws {
        for sql in ["", "   ", "-- only a comment", "/* x */ ;"] {
            let error = try #require(databaseError { _ = try db.makeStatement(sql: sql) })
            #expect(error.kind == .emptyStatement)
        }
    }

    /// Checks that validateSQL reports syntax errors without running anything.
    @Test func validateSQL_preparesWithoutRunning() throws {
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.validateSQL("INSERT INTO t VALUES (1)")
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 0)
        #expect(databaseError { try db.validateSQL("INSERT INTO nope VALUES (1)") }?.message == "no such table: nope")
    }

    /// Checks that execute runs a PRAGMA that returns a row, and a SELECT, ignoring their rows.
    @Test func execute_ignoresRows() throws {
        try db.execute(sql: "PRAGMA journal_mode = MEMORY")
        try db.execute(sql: "SELECT 1 UNION ALL SELECT 2")
    }
}
