import Testing

@testable import SQLiteEngine

/// The statement cache.
@Suite struct StatementCacheTests {
    /// Checks hits and misses, and that the same free statement is handed out again.
    @Test func cache_countsHitsAndMisses() throws {
        let db = try makeMemoryDatabase()
        let first = try db.cachedStatement(sql: "SELECT 1")
        let second = try db.cachedStatement(sql: "SELECT 1")
        #expect(first === second)
        let stats = db.statementCacheStatistics
        #expect(stats.hits == 1)
        #expect(stats.misses == 1)
        #expect(stats.count == 1)
    }

    /// A cached statement's column names and declared types follow a recompilation: `*` picks up a column added
    /// after the statement was first prepared.
    @Test func cachedStatement_columnsFollowSchemaChange() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(a INTEGER, b TEXT)")
        let statement = try db.cachedStatement(sql: "SELECT * FROM t")
        #expect(statement.columnNames == ["a", "b"])
        #expect(statement.declaredTypes == ["INTEGER", "TEXT"])
        try db.execute(sql: "ALTER TABLE t ADD COLUMN c REAL")
        #expect(try statement.step() == false)
        statement.reset()
        #expect(statement.columnNames == ["a", "b", "c"])
        #expect(statement.declaredTypes == ["INTEGER", "TEXT", "REAL"])
    }

    /// `memoized` derives once per compilation: again after a schema change recompiles the statement, and when a
    /// value of another type is asked for.
    @Test func memoized_derivesOncePerCompilation() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(a)")
        let statement = try db.cachedStatement(sql: "SELECT * FROM t")
        final class Names {
            let names: [String]
            init(_ names: [String]) { self.names = names }
        }
        final class Count {
            let count: Int
            init(_ count: Int) { self.count = count }
        }
        var derivations = 0
        let derive = { (statement: Statement) -> Names in
            derivations += 1
            return Names(statement.columnNames)
        }
        #expect(statement.memoized(derive).names == ["a"])
        #expect(statement.memoized(derive).names == ["a"])
        #expect(derivations == 1)
        try db.execute(sql: "ALTER TABLE t ADD COLUMN b")
        #expect(try statement.step() == false)
        statement.reset()
        #expect(statement.memoized(derive).names == ["a", "b"])
        #expect(derivations == 2)
        #expect(statement.memoized { Count($0.columnCount) }.count == 2)
        #expect(statement.memoized(derive).names == ["a", "b"])
        #expect(derivations == 3)
    }

    /// Checks that the cache is bounded and evicts the least recently used statement.
    @Test func cache_isBoundedLRU() throws {
        var configuration = Configuration()
        configuration.statementCacheSize = 2
        let db = try makeMemoryDatabase(configuration)
        let a = try db.cachedStatement(sql: "SELECT 'a'")
        _ = try db.cachedStatement(sql: "SELECT 'b'")
        #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)  // 'a' is now the most recent
        _ = try db.cachedStatement(sql: "SELECT 'c'")  // evicts 'b'
        #expect(db.statementCacheStatistics.count == 2)
        #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
        let misses = db.statementCacheStatistics.misses
        _ = try db.cachedStatement(sql: "SELECT 'b'")
        #expect(db.statementCacheStatistics.misses == misses + 1)
    }

    /// Checks that the statement found last is not handed out again once evicted, removed or cleared.
    @Test func cache_recentStatementLeavesWithItsEntry() throws {
        var configuration = Configuration()
        configuration.statementCacheSize = 1
        let db = try makeMemoryDatabase(configuration)
        let a = try db.cachedStatement(sql: "SELECT 'a'")
        #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
        _ = try db.cachedStatement(sql: "SELECT 'b'")  // evicts 'a'
        #expect(try db.cachedStatement(sql: "SELECT 'a'") !== a)
        let b = try db.cachedStatement(sql: "SELECT 'b'")  // evicts the new 'a', prepares 'b' again
        #expect(try db.cachedStatement(sql: "SELECT 'b'") === b)
        db.clearStatementCache()
        #expect(try db.cachedStatement(sql: "SELECT 'b'") !== b)
    }

    /// Statements used in turn (a request's write, then the server's statements for its key) are each handed out
    /// again, and an evicted one is never handed out from the recent entries: with room for two statements, the
    /// third evicts the least recently used although it is still among the last four found.
    @Test func cache_statementsUsedInTurn_areFoundAndLeaveWithTheirEntries() throws {
        let db = try makeMemoryDatabase()
        let texts = ["SELECT 'a'", "SELECT 'b'", "SELECT 'c'"]
        let first = try texts.map { try db.cachedStatement(sql: $0) }
        for _ in 0..<3 {
            for (text, statement) in zip(texts, first) { #expect(try db.cachedStatement(sql: text) === statement) }
        }
        #expect(db.statementCacheStatistics.hits == 9)

        var configuration = Configuration()
        configuration.statementCacheSize = 2
        let small = try makeMemoryDatabase(configuration)
        let a = try small.cachedStatement(sql: texts[0])
        let b = try small.cachedStatement(sql: texts[1])
        _ = try small.cachedStatement(sql: texts[2])  // evicts 'a'
        #expect(try small.cachedStatement(sql: texts[1]) === b)
        #expect(try small.cachedStatement(sql: texts[0]) !== a)
    }

    /// Checks that the statement found last is dropped, not lent again, after its step failed.
    @Test func cache_recentStatementEvictedAfterFailure() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x INTEGER UNIQUE)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
        let statement = try db.cachedStatement(sql: "INSERT INTO t VALUES (?)")
        #expect(throws: DatabaseError.self) { try statement.run([1]) }
        #expect(try db.cachedStatement(sql: "INSERT INTO t VALUES (?)") !== statement)
    }

    /// Checks that the statement found last is not lent twice while a cursor holds it.
    @Test func cache_recentStatementNotLentWhileInUse() throws {
        let db = try makeMemoryDatabase()
        let cursor = try db.query(sql: "SELECT 1 UNION ALL SELECT 2")
        #expect(try cursor.step())
        let other = try db.cachedStatement(sql: "SELECT 1 UNION ALL SELECT 2")
        #expect(other !== cursor.statement)
        cursor.close()
        #expect(try db.cachedStatement(sql: "SELECT 1 UNION ALL SELECT 2") === cursor.statement)
    }

    /// Checks that size 0 disables the cache.
    @Test func cache_sizeZeroDisables() throws {
        var configuration = Configuration()
        configuration.statementCacheSize = 0
        let db = try makeMemoryDatabase(configuration)
        let first = try db.cachedStatement(sql: "SELECT 1")
        let second = try db.cachedStatement(sql: "SELECT 1")
        #expect(first !== second)
        #expect(db.statementCacheStatistics.count == 0)
        #expect(db.statementCacheStatistics.hits == 0)
    }

    /// Checks that a statement in use by a cursor is never handed out twice: two cursors on the same SQL work.
    @Test func cache_neverLendsStatementInUse() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
        let query = "SELECT x FROM t ORDER BY x"
        let outer = try db.query(sql: query)
        var pairs: [[Int64]] = []
        while let row = try outer.next() {
            let inner = try db.query(sql: query)
            #expect(inner.statement !== outer.statement)
            while let innerRow = try inner.next() {
                pairs.append([row.int64(at: 0)!, innerRow.int64(at: 0)!])
            }
        }
        #expect(pairs.count == 9)
        #expect(pairs.first == [1, 1])
        #expect(pairs.last == [3, 3])
    }

    /// Checks that a statement stepping (not yet done) is not handed out again.
    @Test func cache_neverLendsSteppingStatement() throws {
        let db = try makeMemoryDatabase()
        let sql = "SELECT 1 UNION ALL SELECT 2"
        let first = try db.cachedStatement(sql: sql)
        #expect(try first.step())
        let second = try db.cachedStatement(sql: sql)
        #expect(second !== first)
        #expect(try second.step())
        #expect(first.int64(at: 0) == 1)
        first.reset()
        #expect(try db.cachedStatement(sql: sql) === first)
    }

    /// Checks that a statement whose bind failed is evicted.
    @Test func cache_evictsStatementAfterBindFailure() throws {
        let db = try makeMemoryDatabase()
        let sql = "SELECT ?"
        let statement = try db.cachedStatement(sql: sql)
        #expect(throws: DatabaseError.self) { try statement.bind([1, 2]) }
        let misses = db.statementCacheStatistics.misses
        let replacement = try db.cachedStatement(sql: sql)
        #expect(replacement !== statement)
        #expect(db.statementCacheStatistics.misses == misses + 1)
        #expect(try db.int64(sql: sql, arguments: [4]) == 4)
    }

    /// Checks that a statement whose step failed is evicted.
    @Test func cache_evictsStatementAfterStepFailure() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x UNIQUE)")
        let sql = "INSERT INTO t VALUES (?)"
        try db.execute(sql: sql, arguments: [1])
        let statement = try db.cachedStatement(sql: sql)
        #expect(throws: DatabaseError.self) { try statement.run([1]) }
        #expect(try db.cachedStatement(sql: sql) !== statement)
        try db.execute(sql: sql, arguments: [2])
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 2)
    }

    /// Checks that statements are reset after DONE and after an error, so they hold no read transaction.
    @Test func statements_areResetAfterDoneAndError() throws {
        let db = try makeMemoryDatabase()
        let statement = try db.makeStatement(sql: "SELECT 1")
        #expect(try statement.step())
        #expect(statement.isBusy)
        #expect(try statement.step() == false)
        #expect(statement.isBusy == false)
        let failing = try db.makeStatement(sql: "SELECT abs(-9223372036854775807 - 1) UNION ALL SELECT 1")
        #expect(throws: DatabaseError.self) { _ = try failing.step() }
        #expect(failing.isBusy == false)
    }
}
