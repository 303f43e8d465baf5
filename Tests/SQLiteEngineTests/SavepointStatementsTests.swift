import Testing

@testable import SQLiteEngine

/// The savepoint statements prepared once per name (``SavepointStatements``): reused, correct when one name nests,
/// bounded, and gone with the connection.
@Suite struct SavepointStatementsTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
    }

    private func count() throws -> Int64 {
        try db.int64(sql: "SELECT count(*) FROM t") ?? -1
    }

    /// Checks that a name used again takes its statements from the memo: the statement cache sees no savepoint
    /// statement at all, however often the name is used.
    @Test func sameName_isPreparedOnce() throws {
        try db.beginTransaction(.immediate)
        let before = db.statementCacheStatistics
        for value in 0..<50 {
            try db.beginSavepoint("unit")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: .positional([.integer(Int64(value))]))
            try db.releaseSavepoint("unit")
        }
        let after = db.statementCacheStatistics
        try db.commit()
        // Only the INSERT went through the cache: one miss, then hits.
        #expect(after.misses - before.misses == 1)
        #expect(after.count - before.count == 1)
        #expect(try count() == 50)
    }

    /// Checks that one name nested in itself acts on the innermost savepoint, as SQLite's own statements do: a
    /// rollback of the inner one keeps the outer one's work, the release of the outer one keeps everything left.
    @Test func nestedSameName_actsOnTheInnermost() throws {
        try db.beginTransaction(.immediate)
        try db.beginSavepoint("unit")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.beginSavepoint("unit")
        try db.execute(sql: "INSERT INTO t VALUES (2)")
        try db.rollbackToSavepoint("unit")
        try db.releaseSavepoint("unit")
        #expect(try count() == 1)
        try db.releaseSavepoint("unit")
        try db.commit()
        #expect(try db.int64(sql: "SELECT x FROM t") == 1)
    }

    /// Checks that more names than the memo holds still work (the oldest are prepared again), including names that
    /// need quoting.
    @Test func manyNames_allWork() throws {
        let names = (0..<(SavepointStatements.capacity * 3)).map { "name \"\($0)\"" }
        try db.beginTransaction(.immediate)
        for round in 0..<2 {
            for (index, name) in names.enumerated() {
                try db.beginSavepoint(name)
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: .positional([.integer(Int64(index))]))
                if (index + round) % 2 == 0 {
                    try db.rollbackToSavepoint(name)
                }
                try db.releaseSavepoint(name)
            }
        }
        try db.commit()
        #expect(try count() == Int64(names.count))
    }

    /// Checks that a failing savepoint statement (releasing a savepoint that is not open) throws, and that the
    /// name's statements still work afterwards.
    @Test func failedRelease_throwsAndTheNameStillWorks() throws {
        try db.beginTransaction(.immediate)
        try db.beginSavepoint("unit")
        try db.releaseSavepoint("unit")
        let error = try #require(databaseError { try db.releaseSavepoint("unit") })
        #expect(error.message.contains("no such savepoint"))
        try db.beginSavepoint("unit")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.releaseSavepoint("unit")
        try db.commit()
        #expect(try count() == 1)
    }

    /// Checks that the statements go with the connection: after close and reopen the name is prepared on the new
    /// connection and works.
    @Test func closeAndReopen_preparesAgain() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path())
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.beginTransaction(.immediate)
        try db.beginSavepoint("unit")
        try db.releaseSavepoint("unit")
        try db.commit()
        try db.close()
        try db.open()
        try db.beginTransaction(.immediate)
        try db.beginSavepoint("unit")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.releaseSavepoint("unit")
        try db.commit()
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 1)
        try db.close()
    }
}
