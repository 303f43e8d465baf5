import Foundation
import Testing

@testable import SQLiteEngine

/// Reading rows through cursors and rows.
@Suite struct RowCursorTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.executeScript(
            """
            CREATE TABLE people(id INTEGER PRIMARY KEY, Name TEXT, score REAL, photo BLOB, active BOOLEAN, born);
            INSERT INTO people VALUES (1, 'Ann', 9.5, x'0102', 1, '2000-01-02 03:04:05.000');
            INSERT INTO people VALUES (2, NULL, NULL, NULL, 0, 946782245.0);
            """
        )
    }

    /// Checks typed getters by index and by case-insensitive name.
    @Test func row_typedGettersByIndexAndName() throws {
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM people WHERE id = 1"))
        #expect(row.int64(at: 0) == 1)
        #expect(row.int(named: "ID") == 1)
        #expect(row.string(at: 1) == "Ann")
        #expect(row.string(named: "name") == "Ann")
        #expect(row.string(named: "NAME") == "Ann")
        #expect(row.double(named: "Score") == 9.5)
        #expect(row.data(named: "photo") == Data([1, 2]))
        #expect(row.bool(named: "active") == true)
        #expect(row.date(named: "born") == Date(timeIntervalSince1970: 946_782_245))
        #expect(row["name"] == .text("Ann"))
        #expect(row["missing"] == nil)
        #expect(row.int64(named: "missing") == nil)
        #expect(row.get(Int.self, at: 0) == 1)
        #expect(row.index(ofColumn: "SCORE") == 2)
    }

    /// Checks isNull and NULL getters.
    @Test func row_isNull() throws {
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM people WHERE id = 2"))
        #expect(row.isNull(at: 1))
        #expect(row.isNull(named: "score"))
        #expect(row.isNull(named: "id") == false)
        #expect(row.string(at: 1) == nil)
        #expect(row.bool(named: "active") == false)
        #expect(row.date(named: "born") == Date(timeIntervalSince1970: 946_782_245))
    }

    /// Checks column names, declared types and the dictionary form.
    @Test func row_columnNamesDeclaredTypesAndDictionary() throws {
        let cursor = try db.query(sql: "SELECT id, Name AS who, score * 2 AS double_score FROM people ORDER BY id")
        #expect(cursor.columnNames == ["id", "who", "double_score"])
        #expect(cursor.declaredTypes == ["INTEGER", "TEXT", nil])
        let row = try #require(try cursor.next())
        #expect(row.columnNames == ["id", "who", "double_score"])
        #expect(row.declaredTypes == ["INTEGER", "TEXT", nil])
        #expect(row.dictionary == ["id": .integer(1), "who": .text("Ann"), "double_score": .real(19)])
        let duplicate = try #require(try db.fetchOne(sql: "SELECT 1 AS a, 2 AS a"))
        #expect(duplicate.dictionary == ["a": .integer(2)])
        #expect(duplicate.int64(named: "a") == 1)
    }

    /// Checks that a cursor yields every row and then nil, and stepping after the end is a misuse error.
    @Test func cursor_steppingAfterEndIsMisuse() throws {
        let cursor = try db.query(sql: "SELECT id FROM people ORDER BY id")
        #expect(try cursor.next()?.int64(at: 0) == 1)
        #expect(try cursor.next()?.int64(at: 0) == 2)
        #expect(try cursor.next() == nil)
        let error = try #require(databaseError { _ = try cursor.next() })
        #expect(error.kind == .misuse)
        #expect(error.message == "the cursor has no more rows")
    }

    /// Checks that stepping a closed cursor is a misuse error and its statement is free again.
    @Test func cursor_steppingAfterCloseIsMisuse() throws {
        let sql = "SELECT id FROM people ORDER BY id"
        let cursor = try db.query(sql: sql)
        _ = try cursor.next()
        cursor.close()
        cursor.close()
        let error = try #require(databaseError { _ = try cursor.next() })
        #expect(error.kind == .misuse)
        #expect(error.message == "the cursor is closed")
        #expect(cursor.statement.isBusy == false)
        #expect(try db.cachedStatement(sql: sql) === cursor.statement)
    }

    /// Checks the no-copy path: stepping the cursor and reading its statement.
    @Test func cursor_readsCurrentRowFromStatement() throws {
        let cursor = try db.query(sql: "SELECT id, score FROM people ORDER BY id")
        var ids: [Int64] = []
        while try cursor.step() {
            ids.append(cursor.statement.int64(at: 0))
            if ids.count == 1 {
                #expect(cursor.statement.double(at: 1) == 9.5)
                #expect(cursor.statement.columnType(at: 1) == .real)
                #expect(cursor.statement.value(at: 1) == .real(9.5))
            } else {
                #expect(cursor.statement.isNull(at: 1))
            }
        }
        #expect(ids == [1, 2])
    }

    /// Checks that a failing cursor reports the error and then refuses to step.
    @Test func cursor_errorThenMisuse() throws {
        let cursor = try db.query(sql: "SELECT abs(-9223372036854775807 - 1)")
        let error = try #require(databaseError { _ = try cursor.next() })
        #expect(error.kind == .sqlite)
        #expect(error.message.contains("integer overflow"))
        #expect(databaseError { _ = try cursor.next() }?.kind == .misuse)
    }

    /// Checks allRows and forEach.
    @Test func cursor_allRowsAndForEach() throws {
        #expect(try db.fetchAll(sql: "SELECT id FROM people ORDER BY id").map { $0.int64(at: 0) } == [1, 2])
        var names: [String?] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        // RowCursor.forEach is the API under test, not Sequence.forEach.
        try db.query(sql: "SELECT Name FROM people ORDER BY id").forEach { names.append($0.string(at: 0)) }
        #expect(names == ["Ann", nil])
    }
}
