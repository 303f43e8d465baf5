import Testing

@testable import SQLiteEngine

/// Column lookups by name: `Statement.columnIndex(named:)`, `Row.index(ofColumn:)` and the table behind them.
@Suite struct ColumnNameTableTests {
    /// Checks that a lookup is case-insensitive and answers the leftmost match, even when a later column matches
    /// exactly.
    @Test func table_answersLeftmostCaseInsensitiveMatch() {
        let table = ColumnNameTable(names: ["id", "Name", "name", "NAME", "x"])
        #expect(table.index(of: "id") == 0)
        #expect(table.index(of: "name") == 1)
        #expect(table.index(of: "NAME") == 1)
        #expect(table.index(of: "nAmE") == 1)
        #expect(table.index(of: "X") == 4)
        #expect(table.index(of: "missing") == nil)
        #expect(table.index(of: "") == nil)
    }

    /// Checks that the hint only decides where to look first, never the answer (also when out of range).
    @Test func table_hintNeverChangesTheAnswer() {
        let table = ColumnNameTable(names: ["a", "b", "A", "c"])
        for hint in -1...6 {
            #expect(table.index(of: "a", hint: hint) == 0)
            #expect(table.index(of: "A", hint: hint) == 0)
            #expect(table.index(of: "b", hint: hint) == 1)
            #expect(table.index(of: "C", hint: hint) == 3)
            #expect(table.index(of: "d", hint: hint) == nil)
        }
    }

    /// Checks `columnIndex(named:)` in and out of column order, across executions and after a schema change.
    @Test func columnIndex_findsColumnsInAnyOrder() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(a INTEGER, b INTEGER, c INTEGER)")
        try db.execute(sql: "INSERT INTO t VALUES (1, 2, 3)")
        let statement = try db.cachedStatement(sql: "SELECT * FROM t")
        for _ in 0..<2 {
            #expect(try statement.step())
            #expect(statement.columnIndex(named: "a") == 0)
            #expect(statement.columnIndex(named: "b") == 1)
            #expect(statement.columnIndex(named: "c") == 2)
            #expect(statement.columnIndex(named: "a") == 0)
            #expect(statement.columnIndex(named: "C") == 2)
            #expect(statement.columnIndex(named: "B") == 1)
            #expect(statement.columnIndex(named: "d") == nil)
            statement.reset()
        }
        // The table is rebuilt after reset: a schema change that re-prepares the statement is seen.
        try db.execute(sql: "ALTER TABLE t ADD COLUMN d INTEGER")
        #expect(try statement.step())
        #expect(statement.columnIndex(named: "d") == 3)
        #expect(statement.int64(at: statement.columnIndex(named: "c")!) == 3)
        statement.reset()
    }

    /// Checks that a row's name lookup is case-insensitive and answers the leftmost duplicate.
    @Test func row_indexOfColumnAnswersLeftmost() throws {
        let db = try makeMemoryDatabase()
        let row = try #require(try db.fetchOne(sql: "SELECT 1 AS v, 2 AS V, 3 AS w"))
        #expect(row.index(ofColumn: "V") == 0)
        #expect(row.index(ofColumn: "v") == 0)
        #expect(row.int64(named: "V") == 1)
        #expect(row.int64(named: "W") == 3)
        #expect(row.index(ofColumn: "z") == nil)
    }
}
