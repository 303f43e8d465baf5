import Testing

@testable import SQLiteEngine

/// Inserting (with conflict policies), updating and deleting records by key.
@Suite struct RecordWriteTests {
    let db: Database
    let users: RecordTable

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(
            sql:
                "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL, n INTEGER DEFAULT 0)"
        )
        users = try #require(try db.recordTable(named: "users"))
    }

    @Test func insert_returnsTheKeys() throws {
        let result = try db.insertRecords(
            into: users,
            rows: [[("name", .text("a"))], [("id", .integer(10)), ("name", .text("b"))]],
            onConflict: .error
        )
        #expect(result.changes == 2)
        #expect(result.keys == [[.integer(1)], [.integer(10)]])
    }

    @Test func ignore_skipsKeyAndUniqueConflictsOnly() throws {
        _ = try db.insertRecords(
            into: users,
            rows: [[("id", .integer(1)), ("email", .text("a@x")), ("name", .text("a"))]],
            onConflict: .error
        )
        let result = try db.insertRecords(
            into: users,
            rows: [
                [("id", .integer(1)), ("name", .text("dup key"))],
                [("email", .text("a@x")), ("name", .text("dup email"))],
                [("id", .integer(2)), ("name", .text("new"))],
            ],
            onConflict: .ignore
        )
        #expect(result.keys == [nil, nil, [.integer(2)]])
        #expect(result.changes == 1)
        let failure = #expect(throws: RecordRowError.self) {
            _ = try db.insertRecords(into: users, rows: [[("id", .integer(3))]], onConflict: .ignore)
        }
        #expect(failure?.rowIndex == 0)
        #expect((failure?.underlying as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
    }

    @Test func update_setsOnlyTheColumnsGiven() throws {
        _ = try db.insertRecords(
            into: users,
            rows: [[("id", .integer(1)), ("name", .text("a")), ("n", .integer(5))]],
            onConflict: .error
        )
        let result = try db.insertRecords(
            into: users,
            rows: [[("id", .integer(1)), ("name", .text("A"))], [("id", .integer(2)), ("name", .text("b"))]],
            onConflict: .update
        )
        #expect(result.keys == [[.integer(1)], [.integer(2)]])
        #expect(try db.fetchRecord(users, key: [.integer(1)]) == [.integer(1), .null, .text("A"), .integer(5)])
    }

    @Test func update_onARowidTable_upsertsOnRowid() throws {
        try db.execute(sql: "CREATE TABLE notes(body TEXT)")
        let notes = try #require(try db.recordTable(named: "notes"))
        _ = try db.insertRecords(into: notes, rows: [[("body", .text("one"))]], onConflict: .error)
        let result = try db.insertRecords(
            into: notes,
            rows: [
                [("rowid", .integer(1)), ("body", .text("ONE"))], [("rowid", .integer(7)), ("body", .text("seven"))],
            ],
            onConflict: .update
        )
        #expect(result.keys == [[.integer(1)], [.integer(7)]])
        #expect(try db.fetchRecord(notes, key: [.integer(1)]) == [.integer(1), .text("ONE")])
        #expect(try db.fetchRecord(notes, key: [.integer(7)]) == [.integer(7), .text("seven")])
    }

    @Test func updateAndDelete_byKey() throws {
        _ = try db.insertRecords(into: users, rows: [[("id", .integer(1)), ("name", .text("a"))]], onConflict: .error)
        #expect(
            try db.updateRecord(users, key: [.integer(1)], values: [("n", .integer(9))]) == [
                .integer(1), .null, .text("a"), .integer(9),
            ]
        )
        #expect(try db.updateRecord(users, key: [.integer(2)], values: [("n", .integer(9))]) == nil)
        #expect(try db.deleteRecord(users, key: [.integer(2)]) == 0)
        #expect(try db.deleteRecord(users, key: [.integer(1)]) == 1)
        #expect(try db.countRecords(RecordQuery(table: users)) == 0)
    }

    @Test func deleteByFilters_needsAFilter() throws {
        _ = try db.insertRecords(
            into: users,
            rows: [[("name", .text("a"))], [("name", .text("b"))]],
            onConflict: .error
        )
        #expect(throws: DatabaseError.self) { try db.deleteRecords(RecordQuery(table: users)) }
        var query = RecordQuery(table: users)
        query.filters = [RecordFilter(column: "name", op: .equal, values: [.text("a"), .text("zz")])]
        #expect(try db.deleteRecords(query) == 1)
        #expect(try db.countRecords(RecordQuery(table: users)) == 1)
    }
}
