import Testing

@testable import SQLiteEngine

/// ScriptStatements.skipFailedStatement: which failed statements a script can step over.
@Suite struct ScriptSkipTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(a)")
    }

    /// Prepares the statements of `script` in turn, stepping over failures when possible: the SQL of each
    /// statement that prepared, "!" for one stepped over, and "end" when a failure ended the script.
    private func walk(_ script: String) throws -> [String] {
        let statements = db.statements(in: script)
        var seen: [String] = []
        while true {
            do {
                guard let statement = try statements.next() else { return seen }
                seen.append(statement.sql)
            } catch {
                guard statements.skipFailedStatement() else { return seen + ["end"] }
                seen.append("!")
            }
        }
    }

    /// Checks that statements failing after parsing (no such table or column) are stepped over.
    @Test(arguments: [
        "SELECT * FROM nope;",
        "SELECT nocol FROM t;",
        "SELECT * FROM t WHERE a = (SELECT x FROM nope);",
        "INSERT INTO nope VALUES ('a;b');",
        "SELECT * FROM nope -- a comment; with a semicolon\n;",
    ])
    func nameResolutionFailure_isSteppedOver(failing: String) throws {
        #expect(try walk("SELECT 1; \(failing) SELECT 2;") == ["SELECT 1;", "!", "SELECT 2;"])
    }

    /// Checks that statements SQLite cannot parse end the script, including a parser error reported at the `;`.
    @Test(arguments: [
        "SELEC 1;",
        "SELECT 1 +;",
        "SELECT 1 FROM t GROUP;",
        "SELECT 'unterminated; SELECT 3;",
    ])
    func syntaxError_endsTheScript(failing: String) throws {
        #expect(try walk("SELECT 1; \(failing) SELECT 2;") == ["SELECT 1;", "end"])
    }

    /// Checks that a trigger whose table does not exist ends the script: SQLite stops reading inside its body, so
    /// going on would run the body's statements and the trigger's `END` (a COMMIT) on their own.
    @Test func triggerOnMissingTable_endsTheScript() throws {
        let script = "CREATE TRIGGER tr AFTER INSERT ON nope BEGIN SELECT 1; END; SELECT 2;"
        #expect(try walk(script) == ["end"])
    }

    /// Checks that an authorizer denial is stepped over and that the index counts the stepped-over statement.
    @Test func authorizerDenial_isSteppedOverAndCounted() throws {
        db.setAuthorizer { context in context.action == .read && context.arg1 == "t" ? .deny : .ok }
        defer { db.setAuthorizer(nil) }
        let statements = db.statements(in: "SELECT 1; SELECT a FROM t; SELECT 2;")
        _ = try statements.next()
        #expect(throws: DatabaseError.self) { try statements.next() }
        #expect(statements.index == 1)
        #expect(statements.skipFailedStatement())
        #expect(statements.index == 2)
        #expect(try statements.next()?.sql == "SELECT 2;")
        #expect(statements.index == 3)
        #expect(!statements.skipFailedStatement())
    }

    /// Checks that the last statement failing without a terminating `;` simply ends the script.
    @Test func lastStatementWithoutSemicolon_endsTheScript() throws {
        #expect(try walk("SELECT 1; SELECT * FROM nope") == ["SELECT 1;", "end"])
    }
}
