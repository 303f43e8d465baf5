import Testing

@testable import SQLiteEngine

/// changes, totalChanges, lastInsertRowID and insertedRowID.
@Suite struct ChangesTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
    }

    /// Checks that changes counts only the last statement, and is 0 for DDL and SELECT.
    @Test func changes_perStatementAndZeroForDDLAndSelect() throws {
        try db.execute(sql: "INSERT INTO t(x) VALUES (1), (2), (3)")
        #expect(db.changes == 3)
        try db.execute(sql: "UPDATE t SET x = x + 1 WHERE id <= 2")
        #expect(db.changes == 2)
        try db.execute(sql: "CREATE TABLE other(y)")
        #expect(db.changes == 0)
        try db.execute(sql: "DELETE FROM t WHERE id = 3")
        #expect(db.changes == 1)
        _ = try db.fetchAll(sql: "SELECT * FROM t")
        #expect(db.changes == 0)
        try db.execute(sql: "UPDATE t SET x = 0 WHERE id = 99")
        #expect(db.changes == 0)
        #expect(db.totalChanges == 3 + 2 + 1)
    }

    /// Checks a statement's own changes and inserted rowid.
    @Test func statement_changesAndInsertedRowID() throws {
        let insert = try db.makeStatement(sql: "INSERT INTO t(id, x) VALUES (?, ?)")
        try insert.run([10, 1])
        #expect(insert.changes == 1)
        #expect(insert.insertedRowID == 10)
        #expect(db.lastInsertRowID == 10)

        let update = try db.makeStatement(sql: "UPDATE t SET x = 2")
        try update.run()
        #expect(update.changes == 1)
        #expect(update.insertedRowID == nil)
        #expect(db.lastInsertRowID == 10)

        // Inserting the same rowid again (after a delete) is still reported as an insert.
        try db.execute(sql: "DELETE FROM t")
        try insert.run([10, 3])
        #expect(insert.insertedRowID == 10)

        let ignored = try db.makeStatement(sql: "INSERT OR IGNORE INTO t(id, x) VALUES (10, 4)")
        try ignored.run()
        #expect(ignored.changes == 0)
        #expect(ignored.insertedRowID == nil)
        #expect(db.lastInsertRowID == 10)
    }

    /// Checks that rows written by triggers do not count in changes (as `sqlite3_changes`), and INSERT RETURNING
    /// reports its rowid.
    @Test func changes_excludeTriggersAndReturning() throws {
        try db.executeScript(
            """
            CREATE TABLE audit(msg);
            CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO audit VALUES ('x'); END;
            """
        )
        let statement = try db.makeStatement(sql: "INSERT INTO t(x) VALUES (1), (2) RETURNING id")
        var ids: [Int64] = []
        while try statement.step() {
            ids.append(statement.int64(at: 0))
        }
        #expect(ids == [1, 2])
        #expect(statement.changes == 2)
        #expect(statement.insertedRowID == 2)
        #expect(db.changes == 2)
        #expect(try db.int64(sql: "SELECT count(*) FROM audit") == 2)
        // A later DDL statement reports 0, not the count left over from the insert.
        try db.execute(sql: "CREATE TABLE later(y)")
        #expect(db.changes == 0)
    }
}
