import Testing

/// `/batch` (stop on first error, continue_on_error, scripts) and `/transaction` (all or nothing, savepoints,
/// params_batch atomicity) through the real binary.
@Suite struct BatchAndTransactionTests {
    /// On the first failure a batch stops: the error's status, results for what ran, `rolled_back: false`, and the
    /// earlier statements stay.
    @Test func batch_stopsAtFirstErrorAndKeepsEarlierStatements() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("bs")
        let response = try client.post(
            "/batch",
            #"""
            {"statements": [{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY)"},
                            {"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "INSERT INTO \#(table) VALUES (2)"}]}
            """#
        )
        expectError(
            response,
            ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_PRIMARYKEY", statementIndex: 2, rolledBack: false)
        )
        let results = try #require(try response.json()["results"]?.arrayValue)
        #expect(results.count == 2)
        #expect(results[1]["changes"] == .integer(1))
        #expect(try client.rows("SELECT id FROM \(table)") == [.array([.integer(1)])])
        try expectWriterInAutocommit(client)
    }

    /// With continue_on_error every statement runs, the answer is 200, and the failed entry is an error with its index.
    @Test func batch_continueOnErrorRunsEverything() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("bc")
        let body = try client.ok(
            "/batch",
            #"""
            {"continue_on_error": true,
             "statements": [{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY)"},
                            {"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "SELECT * FROM no_such_table_e2eapi"},
                            {"sql": "INSERT INTO \#(table) VALUES (2)"}]}
            """#
        )
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.count == 5)
        #expect(body["error"] == nil)
        #expect(results[2]["error"]?["code"] == .string("SQLITE_CONSTRAINT_PRIMARYKEY"))
        #expect(results[2]["error"]?["statement_index"] == .integer(2))
        #expect(results[2]["error"]?["sqlite_code"] == .integer(1555))
        #expect(results[3]["error"]?["code"] == .string("SQLITE_ERROR"))
        #expect(results[3]["error"]?["statement_index"] == .integer(3))
        #expect(results[4]["changes"] == .integer(1))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 2)
        try expectWriterInAutocommit(client)
    }

    /// A script is split by SQLite's parser: `;` in strings, comments and a trigger body do not split it.
    @Test func script_splitsBySQLiteParser() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sp")
        let script = """
            CREATE TABLE \(table)(id INTEGER PRIMARY KEY, s TEXT); -- a comment; with a semicolon
            CREATE TABLE \(table)_log(msg TEXT);
            /* block; comment */
            CREATE TRIGGER \(table)_trg AFTER INSERT ON \(table) BEGIN
                INSERT INTO \(table)_log VALUES ('inserted; ' || new.s);
                INSERT INTO \(table)_log VALUES ('twice;');
            END;
            INSERT INTO \(table)(s) VALUES ('a;b'), ('c'';d');
            SELECT s FROM \(table) ORDER BY id
            """
        let body = try client.ok("/batch", #"{"script": \#(jsonString(script)), "shape": "arrays"}"#)
        let results = try #require(body["results"]?.arrayValue)
        #expect(results.count == 5)
        #expect(results[4]["rows"] == .array([.array([.string("a;b")]), .array([.string("c';d")])]))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)_log") == 4)
    }

    /// A script with no statement is INVALID_REQUEST without a statement index, even with continue_on_error.
    @Test(arguments: [false, true])
    func script_withoutStatementsIsInvalidEvenWithContinueOnError(continueOnError: Bool) throws {
        let client = try SharedSqlited.get().makeClient()
        for script in ["", "  ", "-- nothing", "/* a */ ;; -- b", ";"] {
            let response = try client.postJSON(
                "/batch",
                .object(["script": .string(script), "continue_on_error": .bool(continueOnError)])
            )
            expectError(response, ExpectedError(status: 400, code: "INVALID_REQUEST"))
            #expect(try response.json()["results"] == nil)
        }
    }

    /// `changes` counts only the rows the statement itself wrote, not those its triggers wrote (as
    /// `sqlite3_changes`).
    @Test func changes_excludeRowsWrittenByTriggers() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("trg")
        try client.update("CREATE TABLE \(table)(x)")
        try client.update("CREATE TABLE \(table)_log(x)")
        try client.update(
            "CREATE TRIGGER \(table)_t AFTER INSERT ON \(table) BEGIN INSERT INTO \(table)_log VALUES (new.x); END"
        )
        let body = try client.ok("/update", #"{"sql": "INSERT INTO \#(table) VALUES (1), (2)"}"#)
        #expect(body["changes"] == .integer(2))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)_log") == 2)
    }

    /// A script whose third statement has a syntax error runs the first two, then fails at index 2.
    @Test func script_failsAtTheBadStatementAfterRunningEarlierOnes() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("se")
        let script =
            "CREATE TABLE \(table)(x); INSERT INTO \(table) VALUES (1); INSERTT INTO \(table) VALUES (2); "
            + "INSERT INTO \(table) VALUES (3);"
        let response = try client.post("/batch", #"{"script": \#(jsonString(script))}"#)
        expectError(response, ExpectedError(status: 400, code: "SQLITE_ERROR", statementIndex: 2, rolledBack: false))
        #expect(try response.json()["results"]?.arrayValue?.count == 2)
        #expect(try client.rows("SELECT x FROM \(table)") == [.array([.integer(1)])])
    }

    /// A transaction failing in its third statement leaves no trace; the body is only the error.
    @Test func transaction_failureUndoesEverything() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("tf")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v)")
        let response = try client.post(
            "/transaction",
            #"""
            {"statements": [{"sql": "INSERT INTO \#(table) VALUES (1, 'a')"},
                            {"sql": "UPDATE \#(table) SET v = 'b' WHERE id = 1"},
                            {"sql": "INSERT INTO \#(table) VALUES (1, 'dup')"},
                            {"sql": "INSERT INTO \#(table) VALUES (2, 'never')"}]}
            """#
        )
        expectError(
            response,
            ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_PRIMARYKEY", statementIndex: 2, rolledBack: true)
        )
        let body = try response.json()
        #expect(body.objectMembers?.map(\.key) == ["error"])
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        try expectWriterInAutocommit(client)
    }

    /// A DDL statement in a failed transaction is undone too.
    @Test func transaction_failureUndoesDDL() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("td")
        let response = try client.post(
            "/transaction",
            #"""
            {"statements": [{"sql": "CREATE TABLE \#(table)(x)"}, {"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "SELEC"}]}
            """#
        )
        expectError(response, ExpectedError(status: 400, code: "SQLITE_ERROR", statementIndex: 2, rolledBack: true))
        expectError(try client.get("/schema/\(table)"), ExpectedError(status: 404, code: "NO_SUCH_TABLE"))
    }

    /// Savepoints work inside a transaction: rows rolled back to a savepoint are gone, the rest commits.
    @Test func transaction_savepointsWork() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sv")
        try client.update("CREATE TABLE \(table)(x)")
        let body = try client.ok(
            "/transaction",
            #"""
            {"mode": "immediate",
             "statements": [{"sql": "INSERT INTO \#(table) VALUES (1)"},
                            {"sql": "SAVEPOINT a"},
                            {"sql": "INSERT INTO \#(table) VALUES (2)"},
                            {"sql": "ROLLBACK TO a"},
                            {"sql": "RELEASE a"},
                            {"sql": "SAVEPOINT b"},
                            {"sql": "INSERT INTO \#(table) VALUES (3)"},
                            {"sql": "RELEASE SAVEPOINT b"},
                            {"sql": "SELECT x FROM \#(table) ORDER BY x"}]}
            """#
        )
        #expect(body["results"]?.arrayValue?.count == 9)
        #expect(body["results"]?[8]?["rows"] == .array([.object(["x": .integer(1)]), .object(["x": .integer(3)])]))
        #expect(try client.rows("SELECT x FROM \(table) ORDER BY x") == [.array([.integer(1)]), .array([.integer(3)])])
        try expectWriterInAutocommit(client)
    }

    /// A transaction that leaves a savepoint open still commits everything.
    @Test func transaction_unreleasedSavepointCommits() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("su")
        try client.update("CREATE TABLE \(table)(x)")
        try client.ok(
            "/transaction",
            #"{"statements": [{"sql": "SAVEPOINT open1"}, {"sql": "INSERT INTO \#(table) VALUES (1)"}]}"#
        )
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
        try expectWriterInAutocommit(client)
    }

    /// A failing parameter set of params_batch on /update undoes the earlier sets.
    @Test func paramsBatch_isAtomicOnUpdate() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pb")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY)")
        let response = try client.post(
            "/update",
            #"{"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[1], [2], [2], [3]]}"#
        )
        let error = expectError(response, ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_PRIMARYKEY"))
        #expect(error?["message"]?.stringValue != nil)
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        try expectWriterInAutocommit(client)
    }

    /// A bind error in a later parameter set of params_batch also undoes the earlier sets.
    @Test func paramsBatch_bindErrorUndoesEarlierSets() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pbb")
        try client.update("CREATE TABLE \(table)(a, b)")
        let response = try client.post(
            "/update",
            #"{"sql": "INSERT INTO \#(table) VALUES (?, ?)", "params_batch": [[1, 2], [3, 4], [5]]}"#
        )
        expectError(response, ExpectedError(status: 400, code: "BIND_ERROR"))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        try expectWriterInAutocommit(client)
    }

    /// Inside /transaction a failing params_batch set undoes its statement's sets (a savepoint), and the whole
    /// transaction is rolled back.
    @Test func paramsBatch_inTransactionRollsBackEverything() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pbt")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY)")
        let response = try client.post(
            "/transaction",
            #"""
            {"statements": [{"sql": "INSERT INTO \#(table) VALUES (100)"},
                            {"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[1], [2], [100]]}]}
            """#
        )
        expectError(
            response,
            ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_PRIMARYKEY", statementIndex: 1, rolledBack: true)
        )
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)

        let ok = try client.ok(
            "/transaction",
            #"{"statements": [{"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[1], [2], [3]]}]}"#
        )
        #expect(ok["results"]?[0]?["changes"] == .integer(3))
        #expect(ok["results"]?[0]?["count"] == .integer(3))
        #expect(ok["results"]?[0]?["last_insert_rowid"] == .integer(3))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 3)
    }

    /// params_batch inside a /batch is atomic per statement: a failing set undoes that statement's earlier sets
    /// while earlier statements stay.
    @Test func paramsBatch_inBatchUndoesOnlyItsStatement() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pbx")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY)")
        let response = try client.post(
            "/batch",
            #"""
            {"statements": [{"sql": "INSERT INTO \#(table) VALUES (100)"},
                            {"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[1], [2], [100]]}]}
            """#
        )
        expectError(
            response,
            ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_PRIMARYKEY", statementIndex: 1, rolledBack: false)
        )
        #expect(try client.rows("SELECT id FROM \(table)") == [.array([.integer(100)])])
        try expectWriterInAutocommit(client)
    }

    /// Errors of every kind inside /batch and /transaction carry the statement index; the writer recovers.
    @Test(arguments: [
        ("SELECT :a", ExpectedError(status: 400, code: "BIND_ERROR")),
        ("SELECT 1; SELECT 2", ExpectedError(status: 400, code: "MULTIPLE_STATEMENTS")),
        ("ATTACH ':memory:' AS x", ExpectedError(status: 403, code: "SQLITE_AUTH")),
        ("SELECT zeroblob(2000000000)", ExpectedError(status: 400, code: "SQLITE_TOOBIG")),
    ])
    func statementError_carriesIndexInBatchAndTransaction(sql: String, base: ExpectedError) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("ix")
        try client.update("CREATE TABLE \(table)(x)")
        let statements = JSONValue.array([
            .object(["sql": .string("INSERT INTO \(table) VALUES (1)")]), .object(["sql": .string(sql)]),
        ])
        var inBatch = base
        inBatch.statementIndex = 1
        inBatch.rolledBack = false
        expectError(try client.postJSON("/batch", .object(["statements": statements])), inBatch)
        var inTransaction = base
        inTransaction.statementIndex = 1
        inTransaction.rolledBack = true
        expectError(try client.postJSON("/transaction", .object(["statements": statements])), inTransaction)
        // The batch's insert stayed; the transaction's was undone.
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
        try expectWriterInAutocommit(client)
    }

    /// The time limit covers a whole /transaction: a runaway statement fails with TIMEOUT, its index and
    /// `rolled_back: true`, and the earlier statements are undone.
    @Test func transaction_timeoutRollsBackEverything() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("tt")
        try client.update("CREATE TABLE \(table)(x)")
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let response = try client.post(
            "/transaction",
            #"""
            {"timeout_ms": 200,
             "statements": [{"sql": "INSERT INTO \#(table) VALUES (1)"}, {"sql": "\#(endless)"}]}
            """#
        )
        expectError(response, ExpectedError(status: 400, code: "TIMEOUT", statementIndex: 1, rolledBack: true))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        try expectWriterInAutocommit(client)
    }

    /// `int64_as_string` and `shape` apply to every result of a /batch and a /transaction.
    @Test(arguments: ["/batch", "/transaction"])
    func options_applyToEveryResult(path: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("opt")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY)")
        let body = try client.ok(
            path,
            #"""
            {"int64_as_string": true, "shape": "arrays",
             "statements": [{"sql": "INSERT INTO \#(table) VALUES (9007199254740993)"},
                            {"sql": "SELECT id, 1 FROM \#(table)"}]}
            """#
        )
        #expect(body["results"]?[0]?["last_insert_rowid"] == .string("9007199254740993"))
        #expect(body["results"]?[1]?["rows"] == .array([.array([.string("9007199254740993"), .number("1")])]))
    }
}
