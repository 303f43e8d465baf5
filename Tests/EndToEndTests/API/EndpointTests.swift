import Testing

/// Every endpoint of the contract through the real binary: POST endpoints, GET /health and /schema, unknown paths,
/// wrong methods and HEAD.
@Suite struct EndpointTests {
    /// /query returns columns, types and rows of a read; /update returns changes and last_insert_rowid.
    @Test func queryAndUpdate_returnResultObjects() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("ep")
        let created = try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT)")
        #expect(created["changes"] == .integer(0))
        #expect(created["columns"] == nil)

        let inserted = try client.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(name) VALUES (?)", "params": ["ann"]}"#
        )
        #expect(inserted["changes"] == .integer(1))
        #expect(inserted["last_insert_rowid"] == .integer(1))

        let read = try client.ok("/query", #"{"sql": "SELECT id, name FROM \#(table)"}"#)
        #expect(read["columns"] == .array([.string("id"), .string("name")]))
        #expect(read["types"] == .array([.string("INTEGER"), .string("TEXT")]))
        #expect(read["rows"] == .array([.object(["id": .integer(1), "name": .string("ann")])]))
        // A read-only statement has no changes/last_insert_rowid; no truncation happened.
        #expect(read["changes"] == nil)
        #expect(read["last_insert_rowid"] == nil)
        #expect(read["truncated"] == nil)
    }

    /// /batch runs a statement list and a script, each result in order.
    @Test func batch_runsStatementsAndScript() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("ep")
        let listed = try client.ok(
            "/batch",
            #"""
            {"statements": [{"sql": "CREATE TABLE \#(table)(x)"},
                            {"sql": "INSERT INTO \#(table) VALUES (?)", "params": [1]},
                            {"sql": "SELECT x FROM \#(table)"}]}
            """#
        )
        let results = try #require(listed["results"]?.arrayValue)
        #expect(results.count == 3)
        #expect(results[1]["changes"] == .integer(1))
        #expect(results[2]["rows"] == .array([.object(["x": .integer(1)])]))

        let scripted = try client.ok(
            "/batch",
            #"{"script": "INSERT INTO \#(table) VALUES (2); SELECT count(*) AS n FROM \#(table);"}"#
        )
        let scriptResults = try #require(scripted["results"]?.arrayValue)
        #expect(scriptResults.count == 2)
        #expect(scriptResults[1]["rows"] == .array([.object(["n": .integer(2)])]))
    }

    /// /transaction commits in each of the three modes.
    @Test(arguments: ["deferred", "immediate", "exclusive"])
    func transaction_commitsInEveryMode(mode: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("tx")
        let body = try client.ok(
            "/transaction",
            #"""
            {"mode": "\#(mode)", "statements": [{"sql": "CREATE TABLE \#(table)(x)"},
                                               {"sql": "INSERT INTO \#(table) VALUES (1), (2)"}]}
            """#
        )
        #expect(body["results"]?.arrayValue?.count == 2)
        #expect(body["results"]?[1]?["changes"] == .integer(2))
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 2)
    }

    /// An unknown transaction mode is an invalid request.
    @Test func transaction_rejectsUnknownMode() throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.post("/transaction", #"{"mode": "eventually", "statements": [{"sql": "SELECT 1"}]}"#)
        expectError(response, ExpectedError(status: 400, code: "INVALID_REQUEST"))
    }

    /// GET /health reports ok with the product and SQLite versions.
    @Test func health_reportsOkAndVersions() throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.get("/health")
        #expect(response.status == 200)
        expectJSONContentType(response)
        let body = try response.json()
        #expect(body["status"] == .string("ok"))
        #expect(body["version"]?.stringValue?.isEmpty == false)
        #expect(body["sqlite_version"]?.stringValue?.hasPrefix("3.") == true)
    }

    /// GET /schema lists tables, indexes, views and triggers with their SQL, and leaves out sqlite_ objects.
    @Test func schema_listsObjectsWithoutInternalOnes() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("sc")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT UNIQUE)")
        try client.update("CREATE INDEX \(table)_v ON \(table)(v)")
        try client.update("CREATE VIEW \(table)_view AS SELECT v FROM \(table)")
        try client.update(
            "CREATE TRIGGER \(table)_trg AFTER INSERT ON \(table) BEGIN SELECT 1; END"
        )
        let response = try client.get("/schema")
        #expect(response.status == 200)
        expectJSONContentType(response)
        let objects = try #require(try response.json()["objects"]?.arrayValue)
        func object(named name: String) -> JSONValue? { objects.first { $0["name"] == .string(name) } }
        #expect(object(named: table)?["type"] == .string("table"))
        #expect(object(named: table)?["sql"]?.stringValue?.hasPrefix("CREATE TABLE") == true)
        #expect(object(named: "\(table)_v")?["type"] == .string("index"))
        #expect(object(named: "\(table)_v")?["tbl_name"] == .string(table))
        #expect(object(named: "\(table)_view")?["type"] == .string("view"))
        #expect(object(named: "\(table)_trg")?["type"] == .string("trigger"))
        // AUTOINCREMENT creates sqlite_sequence; UNIQUE creates sqlite_autoindex_…; both are internal.
        #expect(!objects.contains { $0["name"]?.stringValue?.hasPrefix("sqlite_") == true })
    }

    /// GET /schema/{table} gives the columns as PRAGMA table_info does, matching the name case-insensitively.
    @Test func tableSchema_describesColumnsCaseInsensitively() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("Sc")
        try client.update(
            "CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', score REAL DEFAULT (1.5), b)"
        )
        for requested in [table, table.uppercased(), table.lowercased()] {
            let response = try client.get("/schema/\(requested)")
            #expect(response.status == 200, "\(requested): \(response.bodyText)")
            expectJSONContentType(response)
            let body = try response.json()
            #expect(body["name"] == .string(table))
            let columns = try #require(body["columns"]?.arrayValue)
            #expect(
                columns == [
                    .object([
                        "cid": .integer(0), "name": .string("id"), "type": .string("INTEGER"), "notnull": .integer(0),
                        "default": .null, "pk": .integer(1),
                    ]),
                    .object([
                        "cid": .integer(1), "name": .string("name"), "type": .string("TEXT"), "notnull": .integer(1),
                        "default": .string("'x'"), "pk": .integer(0),
                    ]),
                    .object([
                        "cid": .integer(2), "name": .string("score"), "type": .string("REAL"), "notnull": .integer(0),
                        "default": .string("1.5"), "pk": .integer(0),
                    ]),
                    .object([
                        "cid": .integer(3), "name": .string("b"), "type": .string(""), "notnull": .integer(0),
                        "default": .null, "pk": .integer(0),
                    ]),
                ]
            )
        }
    }

    /// A table name with a space and a quote, URL-encoded in the path, is decoded and found (never spliced into SQL).
    @Test func tableSchema_decodesPercentEncodedNames() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = "my table \(uniqueTableName("q"))'s"
        try client.update("CREATE TABLE \"\(table)\"(a INTEGER)")
        let encoded = table.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "'", with: "%27")
        let response = try client.get("/schema/\(encoded)")
        #expect(response.status == 200, "\(response.bodyText)")
        let body = try response.json()
        #expect(body["name"] == .string(table))
        #expect(body["columns"]?[0]?["name"] == .string("a"))
    }

    /// A missing table, or an internal sqlite_ table, is 404 NO_SUCH_TABLE.
    @Test(arguments: ["no_such_table_e2eapi", "sqlite_schema", "x%27%20OR%20%271%27%3D%271"])
    func tableSchema_missingTableIs404(name: String) throws {
        let client = try SharedSqlited.get().makeClient()
        expectError(try client.get("/schema/\(name)"), ExpectedError(status: 404, code: "NO_SUCH_TABLE"))
    }

    /// An unknown path is 404 NOT_FOUND, whatever the method (`GET /` redirects to the console since issue #31; an
    /// unknown file of the console is the API's 404 too).
    @Test(arguments: [("GET", "/nope"), ("POST", "/queries"), ("GET", "/ui/nope.js"), ("DELETE", "/health/x")])
    func unknownPath_is404(method: String, path: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.request(method: method, path: path)
        expectError(response, ExpectedError(status: 404, code: "NOT_FOUND"))
    }

    /// A wrong method is 405 METHOD_NOT_ALLOWED with an `Allow` header listing the right ones.
    @Test(arguments: [
        ("GET", "/query", ["POST"]), ("PUT", "/update", ["POST"]), ("GET", "/batch", ["POST"]),
        ("DELETE", "/transaction", ["POST"]), ("POST", "/health", ["GET", "HEAD"]),
        ("PUT", "/schema", ["GET", "HEAD"]),
        ("POST", "/schema/anything", ["GET", "HEAD"]),
    ])
    func wrongMethod_is405WithAllow(method: String, path: String, allowed: [String]) throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.request(method: method, path: path)
        expectError(response, ExpectedError(status: 405, code: "METHOD_NOT_ALLOWED"))
        let allow = (response.header("Allow") ?? "").split(separator: ",").map { $0.trimmingSpaces() }
        #expect(Set(allow) == Set(allowed), "Allow: \(response.header("Allow") ?? "none")")
    }

    /// HEAD on a GET endpoint answers like GET without a body, with the GET's Content-Length.
    @Test(arguments: ["/health", "/schema", "/schema/sqlite_e2eapi_missing"])
    func head_answersLikeGetWithoutBody(path: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let head = try client.request(method: "HEAD", path: path)
        let get = try client.get(path)
        #expect(head.status == get.status)
        #expect(head.status == (path.hasPrefix("/schema/") ? 404 : 200))
        #expect(head.body.isEmpty)
        expectJSONContentType(head)
        // The connection is still usable: the HEAD response carried no body bytes.
        #expect(try client.get("/health").status == 200)
        #expect(client.connectionsOpened == 1)
        if path != "/schema", let length = head.header("Content-Length") {
            #expect(Int(length) == get.body.count)
        }
    }
}
