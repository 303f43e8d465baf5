import Testing

/// The rows of the contract's error table that SQL and JSON reach: status, `code`, `sqlite_code` presence and the
/// JSON content type, for each.
@Suite struct SQLErrorTests {
    /// Bodies that are not JSON are 400 INVALID_JSON.
    @Test(arguments: [
        "", "{", "{\"sql\": }", "{'sql': 'SELECT 1'}", "{\"sql\": \"SELECT 1\"} trailing", "[1,]", "nul",
        "{\"sql\": \"\\ud800\"}", "{\"sql\": \"SELECT 1\", \"sql\": \"SELECT 2\"", "\u{FEFF}",
    ])
    func notJSON_isInvalidJSON(body: String) throws {
        let client = try SharedSqlited.get().makeClient()
        expectError(try client.post("/query", body), ExpectedError(status: 400, code: "INVALID_JSON"))
    }

    /// Invalid UTF-8 in the body is 400 INVALID_JSON.
    @Test func invalidUTF8_isInvalidJSON() throws {
        let client = try SharedSqlited.get().makeClient()
        let body = Array(#"{"sql": "SELECT '"#.utf8) + [0xC3, 0x28] + Array(#"'"}"#.utf8)
        let response = try client.request(
            method: "POST",
            path: "/query",
            headers: [("Content-Type", "application/json")],
            body: body
        )
        expectError(response, ExpectedError(status: 400, code: "INVALID_JSON"))
    }

    /// A SQL error per row of the table: the status and code for each kind of failing statement.
    @Test(arguments: [
        ("/query", "SELEC 1", ExpectedError(status: 400, code: "SQLITE_ERROR")),
        ("/query", "SELECT * FROM no_such_table_e2eapi", ExpectedError(status: 400, code: "SQLITE_ERROR")),
        ("/query", "SELECT no_such_function(1)", ExpectedError(status: 400, code: "SQLITE_ERROR")),
        ("/update", "SELECT 1; SELECT 2", ExpectedError(status: 400, code: "MULTIPLE_STATEMENTS")),
        ("/query", "SELECT 1; SELECT 2;", ExpectedError(status: 400, code: "MULTIPLE_STATEMENTS")),
        ("/query", "CREATE TABLE e2eapi_never(x)", ExpectedError(status: 400, code: "READONLY_STATEMENT")),
        ("/update", "SELECT zeroblob(2000000000)", ExpectedError(status: 400, code: "SQLITE_TOOBIG")),
        ("/query", "SELECT zeroblob(2000000000)", ExpectedError(status: 400, code: "SQLITE_TOOBIG")),
        ("/query", "SELECT randomblob(2000000000)", ExpectedError(status: 400, code: "SQLITE_TOOBIG")),
        ("/query", "SELECT hex(zeroblob(6000000))", ExpectedError(status: 400, code: "SQLITE_TOOBIG")),
        ("/update", "ATTACH DATABASE ':memory:' AS other", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "DETACH DATABASE main", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/query", "PRAGMA database_list", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "PRAGMA database_list", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "PRAGMA journal_mode = DELETE", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "CREATE TEMP TABLE e2eapi_temp(x)", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "CREATE TEMPORARY VIEW e2eapi_tv AS SELECT 1", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/query", "SELECT load_extension('/nonexistent/ext')", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "SELECT load_extension('/nonexistent/ext')", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("/update", "VACUUM INTO '/tmp/e2eapi-copy.sqlite'", ExpectedError(status: 403, code: "SQLITE_AUTH")),
    ])
    func failingStatement_hasContractStatusAndCode(path: String, sql: String, expected: ExpectedError) throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.postJSON(path, .object(["sql": .string(sql)]))
        let error = expectError(response, expected)
        if expected.code == "SQLITE_AUTH" {
            #expect(error?["sqlite_code"] == .integer(23))
        }
    }

    /// A write sent to /query is refused with READONLY_STATEMENT and has no effect.
    @Test func writeOnQuery_isReadonlyStatementAndChangesNothing() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("ro")
        try client.update("CREATE TABLE \(table)(x)")
        for sql in [
            "INSERT INTO \(table) VALUES (1)", "UPDATE \(table) SET x = 2", "DELETE FROM \(table)",
            "INSERT INTO \(table) VALUES (1) RETURNING x", "DROP TABLE \(table)",
        ] {
            let response = try client.postJSON("/query", .object(["sql": .string(sql)]))
            let error = expectError(response, ExpectedError(status: 400, code: "READONLY_STATEMENT"))
            #expect(error?["message"]?.stringValue?.contains("/update") == true, "\(sql)")
        }
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
    }

    /// Allowed pragmas answer normally on both kinds of connection.
    @Test func allowedPragmas_work() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pr")
        try client.update("CREATE TABLE \(table)(a INTEGER, b TEXT)")
        let info = try client.ok("/query", #"{"sql": "PRAGMA table_info(\#(table))", "shape": "arrays"}"#)
        #expect(info["rows"]?.arrayValue?.count == 2)
        _ = try client.ok("/query", #"{"sql": "PRAGMA user_version"}"#)
        _ = try client.ok("/query", #"{"sql": "PRAGMA integrity_check"}"#)
        _ = try client.ok("/update", #"{"sql": "PRAGMA index_list(\#(table))"}"#)
    }

    /// `BEGIN`, `COMMIT`, `END`, `ROLLBACK` are refused everywhere; savepoint statements outside /transaction.
    @Test(arguments: [
        "BEGIN", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE TRANSACTION", "COMMIT", "END", "END TRANSACTION", "ROLLBACK",
        "  begin;", "/* c */ COMMIT", "SAVEPOINT s1", "RELEASE s1", "RELEASE SAVEPOINT s1", "ROLLBACK TO s1",
    ])
    func transactionControl_isRefused(sql: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let statement = JSONValue.object(["sql": .string(sql)])
        for path in ["/query", "/update"] {
            let response = try client.postJSON(path, statement)
            expectError(response, ExpectedError(status: 400, code: "TRANSACTION_CONTROL"))
        }
        let batch = try client.postJSON("/batch", .object(["statements": .array([statement])]))
        expectError(
            batch,
            ExpectedError(status: 400, code: "TRANSACTION_CONTROL", statementIndex: 0, rolledBack: false)
        )
        let script = try client.postJSON("/batch", .object(["script": .string("SELECT 1; \(sql)")]))
        expectError(
            script,
            ExpectedError(status: 400, code: "TRANSACTION_CONTROL", statementIndex: 1, rolledBack: false)
        )
        if !sql.uppercased().contains("SAVEPOINT") && !sql.uppercased().contains("RELEASE")
            && !sql.uppercased().contains("ROLLBACK TO")
        {
            let transaction = try client.postJSON("/transaction", .object(["statements": .array([statement])]))
            expectError(
                transaction,
                ExpectedError(status: 400, code: "TRANSACTION_CONTROL", statementIndex: 0, rolledBack: true)
            )
        }
        // The writer is in autocommit again: a write succeeds and can be read back by a reader.
        try expectWriterInAutocommit(client)
    }

    /// Constraint violations are 409 with the extended code's name and number.
    @Test(arguments: [
        ("INSERT INTO T(id, u, nn, c, fk) VALUES (1, 'a', 1, 1, NULL)", "SQLITE_CONSTRAINT_PRIMARYKEY", 1555),
        ("INSERT INTO T(id, u, nn, c, fk) VALUES (2, 'taken', 1, 1, NULL)", "SQLITE_CONSTRAINT_UNIQUE", 2067),
        ("INSERT INTO T(id, u, nn, c, fk) VALUES (2, 'b', NULL, 1, NULL)", "SQLITE_CONSTRAINT_NOTNULL", 1299),
        ("INSERT INTO T(id, u, nn, c, fk) VALUES (2, 'b', 1, -1, NULL)", "SQLITE_CONSTRAINT_CHECK", 275),
        ("INSERT INTO T(id, u, nn, c, fk) VALUES (2, 'b', 1, 1, 999)", "SQLITE_CONSTRAINT_FOREIGNKEY", 787),
    ])
    func constraintViolation_is409(template: String, code: String, sqliteCode: Int) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("cons")
        try client.update("CREATE TABLE \(table)_p(id INTEGER PRIMARY KEY)")
        try client.update(
            """
            CREATE TABLE \(table)(id INTEGER PRIMARY KEY, u TEXT UNIQUE, nn INTEGER NOT NULL, c INTEGER CHECK (c > 0),
            fk INTEGER REFERENCES \(table)_p(id))
            """
        )
        try client.update("INSERT INTO \(table)(id, u, nn, c, fk) VALUES (1, 'taken', 1, 1, NULL)")
        let sql = template.replacingOccurrences(of: "INTO T(", with: "INTO \(table)(")
        let response = try client.postJSON("/update", .object(["sql": .string(sql)]))
        let error = expectError(response, ExpectedError(status: 409, code: code))
        #expect(error?["sqlite_code"] == .integer(sqliteCode))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
        try expectWriterInAutocommit(client)
    }

    /// A non-integer into an INTEGER PRIMARY KEY is 400 SQLITE_MISMATCH.
    @Test func nonIntegerRowid_isMismatch() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("mm")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY)")
        let response = try client.post("/update", #"{"sql": "INSERT INTO \#(table) VALUES (?)", "params": ["abc"]}"#)
        let error = expectError(response, ExpectedError(status: 400, code: "SQLITE_MISMATCH"))
        #expect(error?["sqlite_code"] == .integer(20))
    }

    /// Binding mistakes are 400 BIND_ERROR, and the message never contains the bound value.
    @Test(arguments: [
        ("SELECT ?, ?", #"[1]"#), ("SELECT ?", #"[1, 2]"#), ("SELECT 1", #"["secret-value"]"#),
        ("SELECT :a", #"{"b": "secret-value"}"#), ("SELECT :a, :b", #"{"a": "secret-value"}"#),
        ("SELECT :a", #"["secret-value"]"#), ("SELECT ?", #"{"a": "secret-value"}"#),
        ("SELECT ?", #"[[1, 2]]"#), ("SELECT ?", #"[{"x": "secret-value"}]"#),
        ("SELECT :a", #"{"a": {"base64": "secret-value", "x": 1}}"#), ("SELECT :a", #"{"a": [1]}"#),
        ("SELECT ?", #"[{"base64": "!!not base64!!"}]"#), ("SELECT ?", #"[{"base64": 5}]"#),
    ])
    func bindMistake_isBindError(sql: String, params: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.post("/query", #"{"sql": "\#(sql)", "params": \#(params)}"#)
        let error = expectError(response, ExpectedError(status: 400, code: "BIND_ERROR"))
        #expect(error?["message"]?.stringValue?.contains("secret-value") == false)
    }

    /// The bind error names the parameter it is about.
    @Test func bindError_namesTheParameter() throws {
        let client = try SharedSqlited.get().makeClient()
        let missing = try client.post("/query", #"{"sql": "SELECT :first, :second", "params": {"first": 1}}"#)
        #expect(missing.errorCode == "BIND_ERROR")
        #expect(try missing.json()["error"]?["message"]?.stringValue?.contains("second") == true)
        let unknown = try client.post("/query", #"{"sql": "SELECT :first", "params": {"first": 1, "other": 2}}"#)
        #expect(unknown.errorCode == "BIND_ERROR")
        #expect(try unknown.json()["error"]?["message"]?.stringValue?.contains("other") == true)
    }

    /// SQL errors in a params_batch keep the bound values out of the message too.
    @Test func constraintMessage_neverContainsBoundValue() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sec")
        try client.update("CREATE TABLE \(table)(v TEXT CHECK (length(v) < 3))")
        let response = try client.post(
            "/update",
            #"{"sql": "INSERT INTO \#(table) VALUES (?)", "params": ["secret-value"]}"#
        )
        let error = expectError(response, ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_CHECK"))
        #expect(error?["message"]?.stringValue?.contains("secret-value") == false)
    }
}

/// After a failed request the writer must be back in autocommit: a write succeeds, and a reader (another connection)
/// sees it, which it could not if the writer had left a transaction open.
func expectWriterInAutocommit(
    _ client: HTTPTestClient,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let table = uniqueTableName("ac")
    let created = try client.post("/update", #"{"sql": "CREATE TABLE \#(table)(x)"}"#)
    #expect(created.status == 200, "\(created.bodyText)", sourceLocation: sourceLocation)
    let inserted = try client.post("/update", #"{"sql": "INSERT INTO \#(table) VALUES (7)"}"#)
    #expect(inserted.status == 200, "\(inserted.bodyText)", sourceLocation: sourceLocation)
    #expect(try client.scalarInt("SELECT x FROM \(table)") == 7, sourceLocation: sourceLocation)
}
