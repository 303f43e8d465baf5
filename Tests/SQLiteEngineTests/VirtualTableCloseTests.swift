import Testing

@testable import SQLiteEngine

/// Closing a connection whose virtual tables hold statements of their own (R*Tree, FTS5 keep prepared statements on
/// the connection): close must finalize only the engine's statements. Finalizing every statement of the connection
/// made the module's own clean-up during close wait for ever on a freed mutex (a server with such a table hung at
/// shutdown).
@Suite struct VirtualTableCloseTests {
    @Test(arguments: [
        "CREATE VIRTUAL TABLE v USING rtree(id, minX, maxX)",
        "CREATE VIRTUAL TABLE v USING fts5(body)",
    ])
    func close_withAVirtualTableInUse_returns(sql: String) throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path())
        try db.execute(sql: sql)
        // Used, so that the module has prepared its statements.
        try db.execute(
            sql: "INSERT INTO v VALUES (1, 2, 3)".replacingOccurrences(
                of: "(1, 2, 3)",
                with: sql.contains("fts5") ? "('hello world')" : "(1, 2, 3)"
            )
        )
        _ = try db.fetchAll(sql: "SELECT * FROM v")
        let held = try db.makeStatement(sql: "SELECT count(*) FROM v")
        try db.close()
        #expect(!held.isValid)
        let reopened = try Database(path: directory.path())
        #expect(try reopened.int64(sql: "SELECT count(*) FROM v") == 1)
        try reopened.close()
    }
}
