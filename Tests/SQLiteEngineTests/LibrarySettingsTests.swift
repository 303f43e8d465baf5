import Testing

@testable import SQLiteEngine

/// Process-wide settings are taken only before SQLite initializes: once a database is open, the call reports that
/// it changed nothing, and the open database keeps working.
@Test func turnOffMemoryStatistics_afterADatabaseWasOpened_changesNothing() throws {
    let db = try Database(path: ":memory:")
    #expect(!LibrarySettings.turnOffMemoryStatistics())
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.execute(sql: "INSERT INTO t VALUES (1)")
}
