import Foundation
import OpenAPIRuntime
import SQLitedClient
import SQLitedTestSupport
import Testing

/// The client against the real server: every call of the hand-written layer, and the generated client's own
/// outputs, over TCP.
@Suite struct ClientEndToEndTests {
    struct Item: Decodable, Equatable {
        var id: Int64
        var name: String?
        var qty: Double?
        var data: SQLBlob?
    }

    @Test func writesAndReadsBackEveryKindOfValue() async throws {
        let server = try SqlitedServer()
        let client = SQLitedClient(serverURL: server.url)
        _ = try await client.update("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, qty REAL, data BLOB)")
        let big: Int64 = 9_007_199_254_740_993  // 2^53 + 1: not exact as a Double
        let inserted = try await client.update(
            "INSERT INTO items VALUES (?, ?, ?, ?)",
            [.integer(big), "a \"quoted\", text\n", 2.5, .blob(Data([0, 1, 255]))]
        )
        #expect(inserted == .init(changes: 1, lastInsertRowID: big))
        _ = try await client.update("INSERT INTO items VALUES (?, ?, ?, ?)", [1, nil, nil, nil])
        let items = try await client.query("SELECT * FROM items ORDER BY id", as: Item.self)
        #expect(
            items == [
                Item(id: 1, name: nil, qty: nil, data: nil),
                Item(id: big, name: "a \"quoted\", text\n", qty: 2.5, data: SQLBlob(Data([0, 1, 255]))),
            ]
        )
        struct Count: Decodable { var n: Int }
        #expect(try await client.query("SELECT count(*) AS n FROM items WHERE id > ?", [1], as: Count.self)[0].n == 1)
    }

    @Test func aTransactionIsAllOrNothing() async throws {
        let server = try SqlitedServer()
        let client = SQLitedClient(serverURL: server.url)
        _ = try await client.update("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
        let results = try await client.transaction([
            .init("INSERT INTO t (v) VALUES ('a')"), .init("INSERT INTO t (v) VALUES (?)", ["b"]),
        ])
        #expect(results.map(\.changes) == [1, 1])
        let error = await #expect(throws: SQLitedError.self) {
            try await client.transaction([
                .init("INSERT INTO t (v) VALUES ('c')"), .init("INSERT INTO t (v) VALUES ('a')"),
            ])
        }
        #expect(error?.status == 409)
        #expect(error?.code == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(error?.statementIndex == 1)
        struct Row: Decodable { var v: String }
        #expect(try await client.query("SELECT v FROM t ORDER BY v", as: Row.self).map(\.v) == ["a", "b"])
    }

    @Test func errorsCarryTheContractsCodes() async throws {
        let server = try SqlitedServer()
        let client = SQLitedClient(serverURL: server.url)
        struct Row: Decodable { var x: Int }
        let syntax = await #expect(throws: SQLitedError.self) { try await client.query("SELEC 1", as: Row.self) }
        #expect(syntax?.status == 400 && syntax?.code == "SQLITE_ERROR" && syntax?.sqliteCode == 1)
        let bind = await #expect(throws: SQLitedError.self) { try await client.query("SELECT ? AS x", as: Row.self) }
        #expect(bind?.status == 400 && bind?.code == "BIND_ERROR")
        let readonly = await #expect(throws: SQLitedError.self) {
            try await client.query("CREATE TABLE nope (x)", as: Row.self)
        }
        #expect(readonly?.code == "READONLY_STATEMENT")
    }

    @Test func tokensAndRoles() async throws {
        let server = try SqlitedServer(tokens: ["app:write:0123456789abcdef0123", "viewer:read:fedcba9876543210fedc"])
        let anonymous = SQLitedClient(serverURL: server.url)
        #expect(try await anonymous.health() == "ok")
        let missing = await #expect(throws: SQLitedError.self) { try await anonymous.update("CREATE TABLE t (x)") }
        #expect(missing?.status == 401 && missing?.code == "UNAUTHORIZED")
        let writer = SQLitedClient(serverURL: server.url, token: "0123456789abcdef0123")
        _ = try await writer.update("CREATE TABLE t (x)")
        let viewer = SQLitedClient(serverURL: server.url, token: "fedcba9876543210fedc")
        let denied = await #expect(throws: SQLitedError.self) { try await viewer.update("INSERT INTO t VALUES (1)") }
        #expect(denied?.status == 403 && denied?.code == "FORBIDDEN")
        struct Row: Decodable { var x: Int }
        #expect(try await viewer.query("SELECT count(*) AS x FROM t", as: Row.self)[0].x == 0)
    }

    /// The generated client names every documented status: a constraint violation is its `.conflict` case.
    @Test func theGeneratedClientsOutputs() async throws {
        let server = try SqlitedServer()
        let client = SQLitedClient(serverURL: server.url)
        _ = try await client.update("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        let statement = Components.Schemas.StatementObject(sql: "INSERT INTO t VALUES (1)")
        let first = try await client.generated.postUpdate(body: .json(.init(value1: statement, value2: .init())))
        #expect(try first.ok.body.json.changes == 1)
        let second = try await client.generated.postUpdate(body: .json(.init(value1: statement, value2: .init())))
        guard case .conflict(let conflict) = second else {
            Issue.record("expected 409, got \(second)")
            return
        }
        #expect(try conflict.body.json.error.code == "SQLITE_CONSTRAINT_PRIMARYKEY")
        let tables = try await client.generated.getTables().ok.body.json.tables
        #expect(tables.map(\.name) == ["t"])
        let page = try await client.generated.getTablesTableRows(path: .init(table: "t")).ok.body.json
        #expect(page.rows.count == 1 && page.next == nil)
        // A row's PATCH answers the row, its DELETE the changes: the document's RowWriteResult is either.
        _ = try await client.update("ALTER TABLE t ADD COLUMN note TEXT")
        let patch = Components.Schemas.RowPatch(additionalProperties: ["note": "patched"])
        let patched = try await client.generated.patchTablesTableRowsKey(
            path: .init(table: "t", key: "1"),
            body: .json(patch)
        )
        guard case .Row(let row) = try patched.ok.body.json else {
            Issue.record("PATCH: expected the row, got \(patched)")
            return
        }
        #expect(row.row.value as? [String: (any Sendable)?] != nil)
        let deleted = try await client.generated.deleteTablesTableRowsKey(path: .init(table: "t", key: "1"))
        guard case .Changes(let changes) = try deleted.ok.body.json else {
            Issue.record("DELETE: expected the changes, got \(deleted)")
            return
        }
        #expect(changes.changes == 1)
    }
}
