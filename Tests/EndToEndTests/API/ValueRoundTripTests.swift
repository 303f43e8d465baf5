import Testing

/// Value and parameter behaviours that FMDB users rely on, checked through HTTP: NULL vs empty blob, every named
/// parameter prefix, `?NNN`, text round-trips, exact 64-bit integers, real formatting, RETURNING, `changes`,
/// `last_insert_rowid` and declared types.
@Suite struct ValueRoundTripTests {
    /// NULL and a zero-length blob stay distinct both ways: bound from JSON and read back, and stored and typed.
    @Test func nullAndEmptyBlob_stayDistinct() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("blob")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, b BLOB)")
        try client.ok(
            "/update",
            #"""
            {"sql": "INSERT INTO \#(table)(id, b) VALUES (?, ?)",
             "params_batch": [[1, null], [2, {"base64": ""}], [3, {"base64": "AAEC/w=="}]]}
            """#
        )
        let body = try client.ok(
            "/query",
            #"{"sql": "SELECT b, typeof(b), length(b) FROM \#(table) ORDER BY id", "shape": "arrays"}"#
        )
        #expect(
            body["rows"]
                == .array([
                    .array([.null, .string("null"), .null]),
                    .array([.object(["base64": .string("")]), .string("blob"), .integer(0)]),
                    .array([.object(["base64": .string("AAEC/w==")]), .string("blob"), .integer(4)]),
                ])
        )
        let literal = try client.ok("/query", #"{"sql": "SELECT x'', NULL, zeroblob(0)", "shape": "arrays"}"#)
        #expect(
            literal["rows"]?[0]
                == .array([.object(["base64": .string("")]), .null, .object(["base64": .string("")])])
        )
    }

    /// A named key binds with or without its prefix, for each of `:`, `@` and `$` in the SQL.
    @Test(arguments: [":", "@", "$"])
    func namedParameter_bindsWithOrWithoutPrefix(prefix: String) throws {
        let client = try SharedSqlited.get().makeClient()
        for key in ["id", "\(prefix)id"] {
            let statement = JSONValue.object([
                "sql": .string("SELECT \(prefix)id + 1 AS v"), "params": .object([key: .integer(41)]),
            ])
            let response = try client.postJSON("/query", statement)
            #expect(response.status == 200, "\(key): \(response.bodyText)")
            #expect(try response.json()["rows"]?[0]?["v"] == .integer(42))
        }
        // A key with another prefix does not match.
        let other = prefix == ":" ? "@id" : ":id"
        let wrong = try client.postJSON(
            "/query",
            .object(["sql": .string("SELECT \(prefix)id AS v"), "params": .object([other: .integer(1)])])
        )
        expectError(wrong, ExpectedError(status: 400, code: "BIND_ERROR"))
    }

    /// `?NNN` parameters bind by number from the array, and a repeated number binds once.
    @Test func numberedParameters_bindByPosition() throws {
        let client = try SharedSqlited.get().makeClient()
        let body = try client.ok(
            "/query",
            #"{"sql": "SELECT ?2, ?1, ?2 + ?1", "params": [10, 20], "shape": "arrays"}"#
        )
        #expect(body["rows"]?[0] == .array([.integer(20), .integer(10), .integer(30)]))
        let tooFew = try client.post("/query", #"{"sql": "SELECT ?3", "params": [1, 2]}"#)
        expectError(tooFew, ExpectedError(status: 400, code: "BIND_ERROR"))
    }

    /// Text round-trips exactly: accents, emoji, combining marks (not normalized), embedded NUL, control characters.
    @Test(arguments: [
        "übertest", "😀👩‍👩‍👧", "e\u{301}", "a\u{0}b", "\u{0}", "tab\there\nnewline \"quoted\" \\ /",
        "\u{1F}\u{7F}\u{2028}", "",
    ])
    func text_roundTripsExactly(text: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("txt")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, s TEXT)")
        try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(id, s) VALUES (1, ?)", "params": [\#(jsonString(text))]}"#
        )
        let body = try client.ok(
            "/query",
            #"{"sql": "SELECT s, length(CAST(s AS BLOB)) FROM \#(table)", "shape": "arrays"}"#
        )
        #expect(body["rows"]?[0]?[0] == .string(text))
        #expect(body["rows"]?[0]?[1] == .integer(text.utf8.count))
        let echoed = try client.ok(
            "/query",
            #"{"sql": "SELECT ?", "params": [\#(jsonString(text))], "shape": "arrays"}"#
        )
        #expect(echoed["rows"]?[0]?[0] == .string(text))
    }

    /// Int64.min and max, and 2^53+1, come back exactly, as written in the raw body text.
    @Test func int64Extremes_areExactInBodyText() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("i64")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v INTEGER)")
        try client.ok(
            "/update",
            #"""
            {"sql": "INSERT INTO \#(table)(id, v) VALUES (?, ?)",
             "params_batch": [[1, 9223372036854775807], [2, -9223372036854775808], [3, 9007199254740993]]}
            """#
        )
        let response = try client.post(
            "/query",
            #"{"sql": "SELECT v, typeof(v) FROM \#(table) ORDER BY id", "shape": "arrays"}"#
        )
        #expect(response.status == 200)
        let text = response.bodyText.filter { $0 != " " && $0 != "\n" }
        #expect(text.contains(#"[9223372036854775807,"integer"]"#), "\(text)")
        #expect(text.contains(#"[-9223372036854775808,"integer"]"#), "\(text)")
        #expect(text.contains(#"[9007199254740993,"integer"]"#), "\(text)")
        // The values are compared in SQL too: they were bound as exact integers, not through a double.
        let exact = try client.scalarInt(
            "SELECT count(*) FROM \(table) WHERE v IN (9223372036854775807, -9223372036854775808, 9007199254740993)"
        )
        #expect(exact == 3)
    }

    /// A number beyond the 64-bit range, or with a fraction or exponent, binds as REAL.
    @Test func nonIntegerNumbers_bindAsReal() throws {
        let client = try SharedSqlited.get().makeClient()
        let body = try client.ok(
            "/query",
            #"""
            {"sql": "SELECT typeof(?), typeof(?), typeof(?), typeof(?), typeof(?)",
             "params": [9223372036854775808, 1.0, 1e2, -0, true], "shape": "arrays"}
            """#
        )
        #expect(
            body["rows"]?[0]
                == .array([.string("real"), .string("real"), .string("real"), .string("integer"), .string("integer")])
        )
    }

    /// Reals always carry a fraction or exponent, keep -0.0's sign, and read back as the same double;
    /// infinities are strings.
    @Test func reals_alwaysLookLikeReals() throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.post(
            "/query",
            #"""
            {"sql": "SELECT 1.0, -0.0, 1e300, ?, 0.1, 2.5e-8, 1e999, -1e999, 100.0",
             "params": [5e-324], "shape": "arrays"}
            """#
        )
        #expect(response.status == 200)
        let row = try #require(try response.json()["rows"]?[0]?.arrayValue)
        #expect(row.count == 9)
        for value in row.prefix(6) + [row[8]] {
            #expect(value.isRealLiteral, "\(value) has no fraction or exponent")
        }
        #expect(row[0] == .number("1.0"))
        #expect(row[1].doubleValue == 0.0 && row[1].doubleValue?.sign == .minus, "\(row[1])")
        #expect(row[2].doubleValue == 1e300)
        #expect(row[3].doubleValue == Double.leastNonzeroMagnitude)
        #expect(row[4].doubleValue == 0.1)
        #expect(row[5].doubleValue == 2.5e-8)
        #expect(row[6] == .string("Infinity"))
        #expect(row[7] == .string("-Infinity"))
        #expect(row[8].doubleValue == 100.0)
    }

    /// `INSERT … RETURNING` gives rows, `changes` and `last_insert_rowid`, alone and with params_batch.
    @Test func insertReturning_givesRowsChangesAndRowid() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("ret")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT)")
        let single = try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(name) VALUES (?) RETURNING id, name", "params": ["ann"]}"#
        )
        #expect(single["columns"] == .array([.string("id"), .string("name")]))
        #expect(single["rows"] == .array([.object(["id": .integer(1), "name": .string("ann")])]))
        #expect(single["changes"] == .integer(1))
        #expect(single["last_insert_rowid"] == .integer(1))

        let batch = try client.ok(
            "/update",
            #"""
            {"sql": "INSERT INTO \#(table)(name) VALUES (:n) RETURNING id",
             "params_batch": [{"n": "bob"}, {"n": "cy"}, {"n": "di"}], "shape": "arrays"}
            """#
        )
        #expect(batch["rows"] == .array([.array([.integer(2)]), .array([.integer(3)]), .array([.integer(4)])]))
        #expect(batch["changes"] == .integer(3))
        #expect(batch["last_insert_rowid"] == .integer(4))
        #expect(batch["count"] == .integer(3))
    }

    /// `changes` is 0 for DDL and never left over from an earlier statement; `last_insert_rowid` is null when the
    /// statement inserted nothing.
    @Test func changesAndRowid_belongToThisStatement() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("chg")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v)")
        let insert = try client.ok("/update", #"{"sql": "INSERT INTO \#(table)(v) VALUES (1), (2), (3)"}"#)
        #expect(insert["changes"] == .integer(3))
        #expect(insert["last_insert_rowid"] == .integer(3))

        let ddl = try client.ok("/update", #"{"sql": "CREATE INDEX \#(table)_v ON \#(table)(v)"}"#)
        #expect(ddl["changes"] == .integer(0))
        #expect(ddl["last_insert_rowid"] == .null)

        let update = try client.ok("/update", #"{"sql": "UPDATE \#(table) SET v = v + 1 WHERE id < 3"}"#)
        #expect(update["changes"] == .integer(2))
        #expect(update["last_insert_rowid"] == .null)

        let noMatch = try client.ok("/update", #"{"sql": "DELETE FROM \#(table) WHERE id > 100"}"#)
        #expect(noMatch["changes"] == .integer(0))
        #expect(noMatch["last_insert_rowid"] == .null)

        let delete = try client.ok("/update", #"{"sql": "DELETE FROM \#(table) WHERE id = 1"}"#)
        #expect(delete["changes"] == .integer(1))
        #expect(delete["last_insert_rowid"] == .null)

        let select = try client.ok("/update", #"{"sql": "SELECT count(*) AS n FROM \#(table)"}"#)
        #expect(select["rows"]?[0]?["n"] == .integer(2))
        #expect(select["changes"] == nil)
        #expect(select["last_insert_rowid"] == nil)

        let drop = try client.ok("/update", #"{"sql": "DROP TABLE \#(table)"}"#)
        #expect(drop["changes"] == .integer(0))
    }

    /// `types` lists declared column types, null for expressions.
    @Test func types_areDeclaredTypesOrNull() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("typ")
        try client.update("CREATE TABLE \(table)(a INTEGER, b VARCHAR(10), c, d DATETIME)")
        let body = try client.ok("/query", #"{"sql": "SELECT a, b, c, d, a + 1, 'x' FROM \#(table)"}"#)
        #expect(
            body["types"]
                == .array([.string("INTEGER"), .string("VARCHAR(10)"), .null, .string("DATETIME"), .null, .null])
        )
        #expect(body["rows"] == .array([]))
    }
}
