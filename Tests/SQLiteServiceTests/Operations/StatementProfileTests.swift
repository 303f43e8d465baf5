import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// The per-statement encoding of result columns (`StatementProfile`) is reused across requests and follows
/// schema changes.
@Suite struct StatementProfileTests {
    static let selectAll = #"{"sql": "SELECT * FROM t ORDER BY id"}"#

    /// The same `/query` text answered before and after `ALTER TABLE … ADD COLUMN` lists the new column in
    /// `columns`, `types` and the row objects: the cached statement's encoded header is not reused past the
    /// recompilation.
    @Test func query_columnsFollowSchemaChangeOfCachedStatement() throws {
        let fixture = try ServiceFixture()
        try fixture.pool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'x')")
        }
        let before = try bodyObject(fixture.send("POST", "/query", json: Self.selectAll))
        #expect(before["columns"] == .array([.string("id"), .string("a")]))
        #expect(before["types"] == .array([.string("INTEGER"), .string("TEXT")]))

        fixture.send("POST", "/update", json: #"{"sql": "ALTER TABLE t ADD COLUMN b REAL DEFAULT 2.5"}"#)
        let after = try bodyObject(fixture.send("POST", "/query", json: Self.selectAll))
        #expect(after["columns"] == .array([.string("id"), .string("a"), .string("b")]))
        #expect(after["types"] == .array([.string("INTEGER"), .string("TEXT"), .string("REAL")]))
        guard case .array(let rows)? = after["rows"], case .object(let row)? = rows.first else {
            Issue.record("no rows")
            return
        }
        #expect(row["b"] == .double(2.5))
        #expect(row.count == 3)
    }

    /// Repeated column names keep the last value in row objects, on first use of a statement and from its
    /// cached profile alike; the arrays shape keeps every value.
    @Test func repeatedNames_lastValueWinsOnEveryUse() throws {
        let fixture = try ServiceFixture()
        let objects = #"{"sql": "SELECT 1 AS a, 2 AS b, 3 AS a"}"#
        let arrays = #"{"sql": "SELECT 1 AS a, 2 AS b, 3 AS a", "shape": "arrays"}"#
        for _ in 0..<2 {
            let body = try bodyObject(fixture.send("POST", "/query", json: objects))
            #expect(body["columns"] == .array([.string("a"), .string("b"), .string("a")]))
            guard case .array(let rows)? = body["rows"], case .object(let row)? = rows.first else {
                Issue.record("no rows")
                return
            }
            #expect(row["a"] == .integer(3))
            #expect(row["b"] == .integer(2))
            #expect(row.count == 2)
            let arrayBody = try bodyObject(fixture.send("POST", "/query", json: arrays))
            #expect(arrayBody["rows"] == .array([.array([.integer(1), .integer(2), .integer(3)])]))
        }
    }
}
