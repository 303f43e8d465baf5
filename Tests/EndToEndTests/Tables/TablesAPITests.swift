import Foundation
import Testing

/// The Tables API through the real binary: every endpoint, filter, option and error of the contract's "Tables".
@Suite struct TablesAPITests {
    /// A fresh table `name(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, score REAL, avatar BLOB)`
    /// with a few rows.
    static func users(_ client: HTTPTestClient) throws -> String {
        let table = uniqueTableName("tu")
        try client.update(
            "CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, score REAL, avatar BLOB)"
        )
        try client.update(
            "INSERT INTO \(table)(id, name, email, score, avatar) VALUES (1, 'Ann', 'ann@x', 2.5, x'01'), "
                + "(2, 'Bob', 'bob@x', NULL, NULL), (3, 'Cy', NULL, 1.0, NULL), (4, 'Dee', 'dee@x', 2.5, NULL)"
        )
        return table
    }

    func get(_ client: HTTPTestClient, _ path: String) throws -> HTTPTestResponse {
        try client.request(method: "GET", path: path)
    }

    func json(
        _ client: HTTPTestClient,
        _ path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> JSONValue
    {
        let response = try get(client, path)
        #expect(response.status == 200, "\(path) → \(response.bodyText)", sourceLocation: sourceLocation)
        return try response.json()
    }

    func ids(_ body: JSONValue) -> [Int64] {
        (body["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.int64Value ?? $0[0]?.int64Value }
    }

    @Test func tablesList_namesKeysAndColumns() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let composite = uniqueTableName("tc")
        try client.update("CREATE TABLE \(composite)(a INTEGER, b TEXT, v, PRIMARY KEY(b, a))")
        try client.update("CREATE VIEW \(composite)_v AS SELECT 1")
        let tables = try #require(try json(client, "/tables")["tables"]?.arrayValue)
        let byName = Dictionary(tables.compactMap { t in t["name"]?.stringValue.map { ($0, t) } }) { a, _ in a }
        #expect(byName[table]?["key"] == .array([.string("id")]))
        #expect(byName[table]?["columns"]?.arrayValue?.count == 5)
        #expect(byName[table]?["columns"]?[1]?["notnull"] == .integer(1))
        #expect(byName[composite]?["key"] == .array([.string("b"), .string("a")]))
        #expect(byName["\(composite)_v"] == nil)
    }

    @Test func rowByKey_singleCompositeAndRowid() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        #expect(
            try json(client, "/tables/\(table)/rows/1")
                == .object([
                    "row": .object([
                        "id": .integer(1), "name": .string("Ann"), "email": .string("ann@x"), "score": .number("2.5"),
                        "avatar": .object(["base64": .string("AQ==")]),
                    ])
                ])
        )
        // 007 is 7 for an INTEGER key; the table name is matched ignoring case.
        #expect(try json(client, "/tables/\(table.uppercased())/rows/004")["row"]?["name"] == .string("Dee"))
        expectError(try get(client, "/tables/\(table)/rows/99"), ExpectedError(status: 404, code: "NO_SUCH_ROW"))
        expectError(try get(client, "/tables/\(table)/rows/7.5"), ExpectedError(status: 400, code: "BIND_ERROR"))
        expectError(
            try get(client, "/tables/\(table)/rows/99999999999999999999"),
            ExpectedError(status: 400, code: "BIND_ERROR")
        )
        expectError(try get(client, "/tables/\(table)/rows/1,2"), ExpectedError(status: 400, code: "INVALID_REQUEST"))

        let composite = uniqueTableName("tk")
        try client.update("CREATE TABLE \(composite)(a INTEGER, b TEXT, v, PRIMARY KEY(b, a))")
        try client.update("INSERT INTO \(composite) VALUES (1, 'x,y', 'first'), (2, 'x', 'second')")
        // Parts in PRIMARY KEY order (b, a); an encoded comma stays inside its part.
        #expect(try json(client, "/tables/\(composite)/rows/x%2Cy,1")["row"]?["v"] == .string("first"))
        #expect(try json(client, "/tables/\(composite)/rows/x,2")["row"]?["v"] == .string("second"))

        let plain = uniqueTableName("tr")
        try client.update("CREATE TABLE \(plain)(body TEXT)")
        try client.update("INSERT INTO \(plain) VALUES ('one'), ('two')")
        #expect(
            try json(client, "/tables/\(plain)/rows/2")
                == .object(["row": .object(["rowid": .integer(2), "body": .string("two")])])
        )
        // A 64-bit key round-trips exactly.
        try client.update("INSERT INTO \(plain)(rowid, body) VALUES (9223372036854775807, 'max')")
        let big = try json(client, "/tables/\(plain)/rows/9223372036854775807?_int64_as_string=true")
        #expect(big["row"]?["rowid"] == .string("9223372036854775807"))
    }

    @Test func filters_equalityInComparisonsAndNulls() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let base = "/tables/\(table)/rows"
        #expect(ids(try json(client, "\(base)?name=Bob")) == [2])
        #expect(ids(try json(client, "\(base)?name=Bob&name=Dee&name=Nobody")) == [2, 4])
        #expect(ids(try json(client, "\(base)?score__ne=2.5")) == [3])  // NULL matches nothing, as in SQL
        #expect(ids(try json(client, "\(base)?id__lt=3")) == [1, 2])
        #expect(ids(try json(client, "\(base)?id__lte=3&id__gt=1")) == [2, 3])
        #expect(ids(try json(client, "\(base)?score__gte=2")) == [1, 4])
        #expect(ids(try json(client, "\(base)?email__isnull=true")) == [3])
        #expect(ids(try json(client, "\(base)?email__isnull=false&score=2.5")) == [1, 4])
        #expect(ids(try json(client, "\(base)?name=Cy+")) == [])  // + is a space
        #expect(try json(client, "/tables/\(table)/count?score=2.5") == .object(["count": .integer(2)]))
        #expect(try json(client, "/tables/\(table)/count") == .object(["count": .integer(4)]))
        expectError(try get(client, "\(base)?nocolumn=1"), ExpectedError(status: 400, code: "NO_SUCH_COLUMN"))
        expectError(try get(client, "\(base)?id=x"), ExpectedError(status: 400, code: "BIND_ERROR"))
        expectError(try get(client, "\(base)?email__isnull=maybe"), ExpectedError(status: 400, code: "INVALID_REQUEST"))
        expectError(try get(client, "\(base)?_unknown=1"), ExpectedError(status: 400, code: "INVALID_REQUEST"))
        expectError(
            try get(client, "/tables/\(table)/count?_limit=1"),
            ExpectedError(status: 400, code: "INVALID_REQUEST")
        )
    }

    @Test func options_orderLimitCountColumnsShape() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let base = "/tables/\(table)/rows"
        // NULLs last descending; the key breaks ties ascending.
        #expect(ids(try json(client, "\(base)?_order=-score")) == [1, 4, 3, 2])
        #expect(ids(try json(client, "\(base)?_order=score,-name")) == [2, 3, 4, 1])
        let page = try json(client, "\(base)?_limit=2&_count=true&_columns=name")
        #expect(
            page["rows"]
                == .array([
                    .object(["id": .integer(1), "name": .string("Ann")]),
                    .object(["id": .integer(2), "name": .string("Bob")]),
                ])
        )
        #expect(page["count"] == .integer(4))
        #expect(page["next"]?.stringValue != nil)
        let arrays = try json(client, "\(base)?_shape=arrays&_columns=email&id=3")
        #expect(arrays["columns"] == .array([.string("id"), .string("email")]))
        #expect(arrays["rows"] == .array([.array([.integer(3), .null])]))
        #expect(arrays["next"] == .null)
        for bad in [
            "_limit=0", "_limit=x", "_limit=-1", "_order=", "_order=nope", "_order=id,id", "_count=yes",
            "_shape=table", "_after=a&_before=b", "_limit=1&_limit=2",
        ] {
            let response = try get(client, "\(base)?\(bad)")
            #expect(response.status == 400, "\(bad): \(response.bodyText)")
        }
        // _limit above the row limit is capped, not refused.
        #expect(ids(try json(client, "\(base)?_limit=100000000")).count == 4)
    }

    /// Forward and backward through every page, with NULLs and duplicate sort values.
    @Test func keysetPaging_forwardAndBackward() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        try client.update("INSERT INTO \(table)(id, name, score) VALUES (5, 'E', NULL), (6, 'F', 2.5), (7, 'G', 1.0)")
        let base = "/tables/\(table)/rows?_order=-score&_limit=2"
        let all = ids(try json(client, "/tables/\(table)/rows?_order=-score&_limit=100"))
        #expect(all == [1, 4, 6, 3, 7, 2, 5])
        var seen: [Int64] = []
        var path = base
        var lastCursor: String?
        while true {
            let page = try json(client, path)
            seen += ids(page)
            guard let next = page["next"]?.stringValue else { break }
            lastCursor = next
            path = base + "&_after=" + next
        }
        #expect(seen == all)
        // Backwards from the cursor that led to the last page: every row before that cursor's row, page by page;
        // a _before page keeps the list's order and says prev (null on the first page).
        let lastPage = try json(client, base + "&_after=" + (lastCursor ?? ""))
        var cursor = try #require(lastCursor)
        var back: [Int64] = []
        while true {
            let page = try json(client, base + "&_before=" + cursor)
            back = ids(page) + back
            guard let prev = page["prev"]?.stringValue else {
                #expect(page["prev"] == .null)
                break
            }
            cursor = prev
        }
        let cursorRow = try #require(all.dropLast(ids(lastPage).count).last)
        #expect(back + [cursorRow] + ids(lastPage) == all)
    }

    /// Truncated, altered, foreign and other-order cursors are 400 INVALID_REQUEST, never an SQLite error.
    @Test func hostileCursors_areRefused() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let other = try Self.users(client)
        let cursor = try #require(try json(client, "/tables/\(table)/rows?_limit=1&_order=name")["next"]?.stringValue)
        let dot = try #require(cursor.firstIndex(of: "."))
        var altered = Array(cursor)
        altered[0] = altered[0] == "W" ? "X" : "W"
        let cases = [
            String(cursor.dropLast(3)), String(altered), String(cursor[..<dot]), cursor + "A", "", "a.b.c",
        ]
        for bad in cases {
            let response = try get(client, "/tables/\(table)/rows?_order=name&_after=\(bad)")
            expectError(response, ExpectedError(status: 400, code: "INVALID_REQUEST"))
        }
        expectError(
            try get(client, "/tables/\(other)/rows?_order=name&_after=\(cursor)"),
            ExpectedError(status: 400, code: "INVALID_REQUEST")
        )
        expectError(
            try get(client, "/tables/\(table)/rows?_order=-name&_after=\(cursor)"),
            ExpectedError(status: 400, code: "INVALID_REQUEST")
        )
    }

    @Test func postRows_conflictPoliciesAndKeys() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let path = "/tables/\(table)/rows"
        let inserted = try client.ok(
            path,
            #"{"rows": [{"name": "Eve", "avatar": {"base64": "AAE="}}, {"id": 20, "name": "Fay"}]}"#
        )
        #expect(
            inserted
                == .object([
                    "changes": .integer(2),
                    "keys": .array([.object(["id": .integer(5)]), .object(["id": .integer(20)])]),
                ])
        )
        let ignored = try client.ok(
            path,
            #"{"rows": [{"id": 1, "name": "dup key"}, {"email": "bob@x", "name": "dup email"}, {"id": 21, "name": "new"}], "on_conflict": "ignore"}"#
        )
        #expect(ignored["keys"] == .array([.null, .null, .object(["id": .integer(21)])]))
        #expect(ignored["changes"] == .integer(1))
        let upserted = try client.ok(path, #"{"rows": [{"id": 1, "score": 9}], "on_conflict": "update"}"#)
        #expect(upserted["keys"] == .array([.object(["id": .integer(1)])]))
        // Only the columns given change.
        #expect(try json(client, "\(path)/1")["row"]?["name"] == .string("Ann"))
        #expect(try json(client, "\(path)/1")["row"]?["score"] == .number("9.0"))

        // All or nothing: the failing row's index, rolled back.
        let failed = try client.post(path, #"{"rows": [{"id": 30, "name": "ok"}, {"id": 31}]}"#)
        let error = expectError(failed, ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_NOTNULL", rolledBack: true))
        #expect(error?["row_index"] == .integer(1))
        #expect(error?["rolled_back"] == .bool(true))
        expectError(try get(client, "\(path)/30"), ExpectedError(status: 404, code: "NO_SUCH_ROW"))
        // ignore skips key and unique conflicts only: NOT NULL still fails.
        expectError(
            try client.post(path, #"{"rows": [{"id": 32}], "on_conflict": "ignore"}"#),
            ExpectedError(status: 409, code: "SQLITE_CONSTRAINT_NOTNULL", rolledBack: true)
        )

        for bad in [
            #"{"rows": []}"#, #"{"rows": {}}"#, #"{"rows": [1]}"#,
            #"{"rows": [{"name": "x"}], "on_conflict": "merge"}"#,
            #"{"rows": [{"name": "x"}], "extra": 1}"#, #"{}"#,
        ] {
            expectError(try client.post(path, bad), ExpectedError(status: 400, code: "INVALID_REQUEST"))
        }
        // A row that cannot be written is a failing row: its index, and nothing written.
        let unknown = expectError(
            try client.post(path, #"{"rows": [{"name": "x"}, {"nope": 1}]}"#),
            ExpectedError(status: 400, code: "NO_SUCH_COLUMN", rolledBack: true)
        )
        #expect(unknown?["row_index"] == .integer(1))
        let unbindable = expectError(
            try client.post(path, #"{"rows": [{"name": [1]}]}"#),
            ExpectedError(status: 400, code: "BIND_ERROR", rolledBack: true)
        )
        #expect(unbindable?["row_index"] == .integer(0))
        expectError(
            try client.post(path, #"{"rows": [{"name": "x"}"#),
            ExpectedError(status: 400, code: "INVALID_JSON")
        )
    }

    @Test func patchAndDelete() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        let path = "/tables/\(table)/rows"
        let patched = try client.request(
            method: "PATCH",
            path: "\(path)/2",
            headers: [("Content-Type", "application/json")],
            body: Array(#"{"score": 7, "email": null}"#.utf8)
        )
        #expect(patched.status == 200, "\(patched.bodyText)")
        #expect(try patched.json()["row"]?["score"] == .number("7.0"))
        #expect(try patched.json()["row"]?["email"] == .null)
        let missing = try client.request(
            method: "PATCH",
            path: "\(path)/99",
            headers: [("Content-Type", "application/json")],
            body: Array(#"{"score": 7}"#.utf8)
        )
        expectError(missing, ExpectedError(status: 404, code: "NO_SUCH_ROW"))

        #expect(try client.request(method: "DELETE", path: "\(path)/3").bodyText == #"{"changes":1}"#)
        expectError(
            try client.request(method: "DELETE", path: "\(path)/3"),
            ExpectedError(status: 404, code: "NO_SUCH_ROW")
        )
        expectError(
            try client.request(method: "DELETE", path: path),
            ExpectedError(status: 400, code: "INVALID_REQUEST")
        )
        #expect(try client.request(method: "DELETE", path: "\(path)?score=2.5").bodyText == #"{"changes":2}"#)
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
        expectError(
            try client.request(method: "PUT", path: path),
            ExpectedError(status: 405, code: "METHOD_NOT_ALLOWED")
        )
        expectError(try get(client, "/tables/no_such_table_tt/rows"), ExpectedError(status: 404, code: "NO_SUCH_TABLE"))
        expectError(try get(client, "/tables/\(table)/other"), ExpectedError(status: 404, code: "NOT_FOUND"))
    }

    /// Hostile names are matched against the schema and quoted; nothing is spliced.
    @Test func hostileNames() throws {
        let client = try SharedSqlited.get().makeClient()
        let victim = uniqueTableName("victim")
        try client.update("CREATE TABLE \(victim)(x)")
        let name = #"x"; DROP TABLE \#(victim); --"# + uniqueTableName("h")
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        try client.update(#"CREATE TABLE \#(quoted)("my col" TEXT PRIMARY KEY, "quo""te" INTEGER, "naïve ü")"#)
        let encoded = try #require(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let inserted = try client.ok(
            "/tables/\(encoded)/rows",
            #"{"rows": [{"my col": "a b", "quo\"te": 1, "naïve ü": "é"}]}"#
        )
        #expect(inserted["keys"] == .array([.object(["my col": .string("a b")])]))
        let filter = try #require("quo\"te".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let rows = try json(client, "/tables/\(encoded)/rows?\(filter)=1")
        #expect(rows["rows"]?[0]?["naïve ü"] == .string("é"))
        #expect(try json(client, "/tables/\(encoded)/rows/a%20b")["row"]?["quo\"te"] == .integer(1))
        #expect(try client.scalarInt("SELECT count(*) FROM \(victim)") == 0)
    }

    /// The schema is read again after a change: a column added through /update is seen by the next request.
    @Test func schemaChange_isSeenAtOnce() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.users(client)
        // The table is cached by the reader(s) these requests land on, then the schema changes under them.
        for _ in 0..<8 { _ = try json(client, "/tables/\(table)/rows/1") }
        try client.update("ALTER TABLE \(table) ADD COLUMN extra TEXT DEFAULT 'd'")
        for _ in 0..<8 {
            #expect(try json(client, "/tables/\(table)/rows/1")["row"]?["extra"] == .string("d"))
        }
        #expect(try json(client, "/tables/\(table)/rows?extra=d&_limit=1")["rows"]?.arrayValue?.count == 1)
        // Dropped and made again with another key type: a key the old table could not convert is found.
        try client.update("DROP TABLE \(table)")
        try client.update("CREATE TABLE \(table)(id TEXT PRIMARY KEY, name TEXT)")
        try client.update("INSERT INTO \(table) VALUES ('abc', 'n')")
        #expect(try json(client, "/tables/\(table)/rows/abc")["row"]?["name"] == .string("n"))
        #expect(try json(client, "/tables/\(table)/rows/abc")["row"]?["extra"] == nil)
    }
}
