import Testing

/// The request options of the contract: `shape`, `int64_as_string`, `max_rows`, `timeout_ms`, and the validation
/// of every option and top-level key.
@Suite struct RequestOptionTests {
    /// Objects keep the last of repeated column names; arrays keep every value; `columns` always lists all.
    @Test func shape_objectsKeepLastRepeatedColumnAndArraysKeepAll() throws {
        let client = try SharedSqlited.get().makeClient()
        let sql = "SELECT 1 AS a, 2 AS b, 3 AS a"
        let objects = try client.ok("/query", #"{"sql": "\#(sql)", "shape": "objects"}"#)
        #expect(objects["columns"] == .array([.string("a"), .string("b"), .string("a")]))
        let row = try #require(objects["rows"]?[0]?.objectMembers)
        #expect(row.map(\.key).sorted() == ["a", "b"])
        #expect(objects["rows"]?[0]?["a"] == .integer(3))

        let defaulted = try client.ok("/query", #"{"sql": "\#(sql)"}"#)
        #expect(defaulted["rows"] == objects["rows"])

        let arrays = try client.ok("/query", #"{"sql": "\#(sql)", "shape": "arrays"}"#)
        #expect(arrays["columns"] == objects["columns"])
        #expect(arrays["rows"] == .array([.array([.integer(1), .integer(2), .integer(3)])]))
    }

    /// `int64_as_string` turns integers beyond ±(2^53−1) into strings and leaves the boundary values as numbers.
    @Test func int64AsString_convertsOnlyUnsafeIntegers() throws {
        let client = try SharedSqlited.get().makeClient()
        let sql =
            "SELECT 9007199254740991, -9007199254740991, 9007199254740992, -9007199254740992, "
            + "9223372036854775807, -9223372036854775808, 1.5"
        let converted = try client.ok("/query", #"{"sql": "\#(sql)", "shape": "arrays", "int64_as_string": true}"#)
        #expect(
            converted["rows"]?[0]
                == .array([
                    .number("9007199254740991"), .number("-9007199254740991"), .string("9007199254740992"),
                    .string("-9007199254740992"), .string("9223372036854775807"), .string("-9223372036854775808"),
                    .number("1.5"),
                ])
        )
        let plain = try client.ok("/query", #"{"sql": "\#(sql)", "shape": "arrays", "int64_as_string": false}"#)
        #expect(
            plain["rows"]?[0]
                == .array([
                    .number("9007199254740991"), .number("-9007199254740991"), .number("9007199254740992"),
                    .number("-9007199254740992"), .number("9223372036854775807"), .number("-9223372036854775808"),
                    .number("1.5"),
                ])
        )
    }

    /// `int64_as_string` applies to `last_insert_rowid` as well.
    @Test func int64AsString_appliesToLastInsertRowid() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("big")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v)")
        let safe = try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(id) VALUES (9007199254740991)", "int64_as_string": true}"#
        )
        #expect(safe["last_insert_rowid"] == .number("9007199254740991"))
        let unsafe = try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(id) VALUES (9007199254740992)", "int64_as_string": true}"#
        )
        #expect(unsafe["last_insert_rowid"] == .string("9007199254740992"))
        let plain = try client.ok("/update", #"{"sql": "INSERT INTO \#(table)(id) VALUES (9223372036854775807)"}"#)
        #expect(plain["last_insert_rowid"] == .number("9223372036854775807"))
    }

    /// `max_rows` cuts rows and says `truncated` only when rows were really cut.
    @Test(arguments: [
        (max: 0, rows: 3, kept: 0, truncated: true), (max: 1, rows: 3, kept: 1, truncated: true),
        (max: 3, rows: 3, kept: 3, truncated: false), (max: 10, rows: 3, kept: 3, truncated: false),
        (max: 0, rows: 0, kept: 0, truncated: false),
    ])
    func maxRows_truncatesOnlyWhenRowsAreCut(max: Int, rows: Int, kept: Int, truncated: Bool) throws {
        let client = try SharedSqlited.get().makeClient()
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT \(rows)"
        let body = try client.ok("/query", #"{"sql": "\#(sql)", "max_rows": \#(max), "shape": "arrays"}"#)
        #expect(body["rows"]?.arrayValue?.count == kept)
        #expect(body["rows"]?.arrayValue?.last == (kept > 0 ? .array([.integer(kept)]) : nil))
        #expect(body["truncated"] == (truncated ? .bool(true) : nil))
        #expect(body["columns"] == .array([.string("x")]))
    }

    /// `max_rows` also applies to `INSERT … RETURNING` on /update, and the insert still happens in full.
    @Test func maxRows_appliesToReturningRows() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("mr")
        try client.update("CREATE TABLE \(table)(x)")
        let body = try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table) VALUES (1), (2), (3) RETURNING x", "max_rows": 2}"#
        )
        #expect(body["rows"]?.arrayValue?.count == 2)
        #expect(body["truncated"] == .bool(true))
        #expect(body["changes"] == .integer(3))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 3)
    }

    /// A statement that never ends hits `timeout_ms` with 400 TIMEOUT; the same connection and a new one then work,
    /// on /query (a reader) and on /update (the writer).
    @Test(arguments: ["/query", "/update"])
    func timeout_stopsRunawayStatementAndServerRecovers(path: String) throws {
        let server = try SharedSqlited.get()
        let client = try server.makeClient()
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let response = try client.post(path, #"{"sql": "\#(endless)", "timeout_ms": 200}"#)
        expectError(response, ExpectedError(status: 400, code: "TIMEOUT"))

        #expect(try client.ok(path, #"{"sql": "SELECT 42 AS v"}"#)["rows"]?[0]?["v"] == .integer(42))
        let fresh = try server.makeClient()
        #expect(try fresh.ok(path, #"{"sql": "SELECT 43 AS v"}"#)["rows"]?[0]?["v"] == .integer(43))
    }

    /// The time limit covers the whole /batch: a runaway second statement fails with its index.
    @Test func timeout_coversWholeBatch() throws {
        let client = try SharedSqlited.get().makeClient()
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let response = try client.post(
            "/batch",
            #"{"statements": [{"sql": "SELECT 1"}, {"sql": "\#(endless)"}], "timeout_ms": 200}"#
        )
        expectError(response, ExpectedError(status: 400, code: "TIMEOUT", statementIndex: 1, rolledBack: false))
        #expect(try response.json()["results"]?.arrayValue?.count == 1)
    }

    /// Options of the wrong type, out of range, and unknown top-level keys are 400 INVALID_REQUEST, on every endpoint.
    @Test(arguments: [
        #""shape": "rows""#, #""shape": 1"#, #""shape": null"#, #""int64_as_string": 1"#,
        #""int64_as_string": "true""#, #""max_rows": -1"#, #""max_rows": 1.5"#, #""max_rows": "10""#,
        #""timeout_ms": 0"#, #""timeout_ms": -5"#, #""timeout_ms": true"#,
        #""unknown_option": 1"#, #""SQL": "SELECT 1""#,
    ])
    func invalidOption_isInvalidRequest(option: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let bodies = [
            ("/query", #"{"sql": "SELECT 1", \#(option)}"#),
            ("/update", #"{"sql": "SELECT 1", \#(option)}"#),
            ("/batch", #"{"statements": [{"sql": "SELECT 1"}], \#(option)}"#),
            ("/transaction", #"{"statements": [{"sql": "SELECT 1"}], \#(option)}"#),
        ]
        for (path, body) in bodies {
            let response = try client.post(path, body)
            expectError(response, ExpectedError(status: 400, code: "INVALID_REQUEST"))
        }
    }

    /// Malformed request shapes are 400 INVALID_REQUEST, and nothing in the request runs.
    @Test(arguments: [
        ("/query", #"{}"#), ("/query", #"[]"#), ("/query", #"{"sql": 1}"#), ("/query", #"{"sql": null}"#),
        ("/query", #"{"sql": ""}"#), ("/query", #"{"sql": "  -- only a comment\n"}"#),
        ("/query", #"{"sql": "SELECT ?", "params": 1}"#),
        ("/update", #"{"sql": "SELECT ?", "params": [1], "params_batch": [[1]]}"#),
        ("/update", #"{"sql": "SELECT ?", "params_batch": []}"#),
        ("/update", #"{"sql": "SELECT ?", "params_batch": [1]}"#),
        ("/batch", #"{"statements": []}"#), ("/batch", #"{"statements": {}}"#),
        ("/batch", #"{"statements": [{"sql": "SELECT 1"}], "script": "SELECT 1"}"#),
        ("/batch", #"{"script": ""}"#), ("/batch", #"{"script": "-- nothing\n/* at all */ "}"#),
        ("/batch", #"{"script": 5}"#), ("/batch", #"{"statements": [{"sql": "SELECT 1"}], "continue_on_error": 1}"#),
        ("/batch", #"{"statements": [{"sql": "SELECT 1", "extra": true}]}"#),
        ("/transaction", #"{"statements": []}"#), ("/transaction", #"{"script": "SELECT 1"}"#),
        ("/transaction", #"{"statements": [{"sql": "SELECT 1"}], "mode": 1}"#),
    ])
    func malformedShape_isInvalidRequest(path: String, body: String) throws {
        let client = try SharedSqlited.get().makeClient()
        expectError(try client.post(path, body), ExpectedError(status: 400, code: "INVALID_REQUEST"))
    }

    /// A malformed statement object late in a list rejects the whole request before anything runs.
    @Test(arguments: ["/batch", "/transaction"])
    func malformedLaterStatement_runsNothing(path: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("val")
        try client.update("CREATE TABLE \(table)(x)")
        let response = try client.post(
            path,
            #"{"statements": [{"sql": "INSERT INTO \#(table) VALUES (1)"}, {"sql": "SELECT 1", "params": "x"}]}"#
        )
        expectError(response, ExpectedError(status: 400, code: "INVALID_REQUEST"))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
    }
}
