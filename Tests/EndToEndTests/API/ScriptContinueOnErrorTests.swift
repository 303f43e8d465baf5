import Testing

/// `/batch` scripts with `continue_on_error`: statements failing after parsing are stepped over; a statement
/// SQLite cannot parse ends the script.
@Suite struct ScriptContinueOnErrorTests {
    /// No such table, no such column and a policy denial each leave an error entry and the script goes on.
    @Test func prepareFailures_areSteppedOver() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sc")
        let script = """
            CREATE TABLE \(table)(x);
            INSERT INTO no_such_table_sc VALUES (1);
            INSERT INTO \(table) VALUES (1);
            SELECT no_such_column FROM \(table);
            ATTACH 'other.db' AS other;
            INSERT INTO \(table) VALUES (2);
            """
        let body = try client.ok("/batch", #"{"script": \#(jsonString(script)), "continue_on_error": true}"#)
        #expect(body["error"] == nil)
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.count == 6)
        #expect(results[1]["error"]?["code"] == .string("SQLITE_ERROR"))
        #expect(results[1]["error"]?["statement_index"] == .integer(1))
        #expect(results[2]["changes"] == .integer(1))
        #expect(results[3]["error"]?["code"] == .string("SQLITE_ERROR"))
        #expect(results[3]["error"]?["statement_index"] == .integer(3))
        #expect(results[4]["error"]?["code"] == .string("SQLITE_AUTH"))
        #expect(results[4]["error"]?["statement_index"] == .integer(4))
        #expect(results[5]["changes"] == .integer(1))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 2)
        try expectWriterInAutocommit(client)
    }

    /// A syntax error ends the script even with continue_on_error: the statements after it never run.
    @Test func syntaxError_endsTheScript() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sx")
        let script =
            "CREATE TABLE \(table)(x); INSERT INTO nope_sx VALUES (1); INSERTT INTO \(table) VALUES (2); "
            + "INSERT INTO \(table) VALUES (3);"
        let body = try client.ok("/batch", #"{"script": \#(jsonString(script)), "continue_on_error": true}"#)
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.count == 3)
        #expect(results[1]["error"]?["statement_index"] == .integer(1))
        #expect(results[2]["error"]?["code"] == .string("SQLITE_ERROR"))
        #expect(results[2]["error"]?["statement_index"] == .integer(2))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
    }

    /// A trigger on a missing table ends the script: SQLite stops reading inside its body, so going on would run
    /// the body's statements (and its END, a COMMIT) on their own.
    @Test func triggerOnAMissingTable_endsTheScript() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("st")
        let script = """
            CREATE TABLE \(table)(x);
            CREATE TRIGGER \(table)_t AFTER INSERT ON no_such_table_st BEGIN INSERT INTO \(table) VALUES (9); END;
            INSERT INTO \(table) VALUES (1);
            """
        let body = try client.ok("/batch", #"{"script": \#(jsonString(script)), "continue_on_error": true}"#)
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.count == 2)
        #expect(results[1]["error"]?["statement_index"] == .integer(1))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        try expectWriterInAutocommit(client)
    }

    /// Without continue_on_error a missing table still stops the batch at its index (unchanged).
    @Test func withoutContinueOnError_aMissingTableStops() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sn")
        let script = "CREATE TABLE \(table)(x); INSERT INTO nope_sn VALUES (1); INSERT INTO \(table) VALUES (1);"
        let response = try client.post("/batch", #"{"script": \#(jsonString(script))}"#)
        expectError(response, ExpectedError(status: 400, code: "SQLITE_ERROR", statementIndex: 1, rolledBack: false))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
    }
}
