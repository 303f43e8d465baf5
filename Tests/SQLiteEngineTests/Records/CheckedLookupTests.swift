import Testing

@testable import SQLiteEngine

/// ``Database/fetchRecordCheckingSchema(_:key:)`` proves the cached table by the statement's compilation count
/// instead of a `PRAGMA` per lookup: every schema change, on any connection, must still be reported.
@Suite struct CheckedLookupTests {
    let directory: TemporaryDirectory
    let writer: Database
    let reader: Database

    init() throws {
        directory = try TemporaryDirectory()
        writer = try Database(path: directory.path())
        try writer.execute(sql: "PRAGMA journal_mode=WAL")
        try writer.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
        try writer.execute(sql: "INSERT INTO t VALUES (1, 'one'), (2, 'two')")
        reader = try Database(path: directory.path())
    }

    private func cachedT() throws -> RecordTable {
        try #require(try reader.recordTable(named: "t"))
    }

    @Test func repeatedLookups_answerFromTheProvenStatement() throws {
        let table = try cachedT()
        for _ in 0..<3 {
            #expect(
                try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("one")])
            )
            #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(9)]) == .noRow)
        }
        // Data changes are not schema changes.
        try writer.execute(sql: "UPDATE t SET a = 'uno' WHERE id = 1")
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("uno")]))
        #expect(!reader.isInTransaction)
    }

    /// A change elsewhere in the schema is reported too (the proof cannot tell which table changed): conservative,
    /// and the refreshed table is proven again.
    @Test func anySchemaChange_isReported_thenProvenAgain() throws {
        let table = try cachedT()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(2)]) == .row([.integer(2), .text("two")]))
        try writer.execute(sql: "CREATE TABLE other(x)")
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(2)]) == .schemaChanged)
        let refreshed = try cachedT()
        #expect(
            try reader.fetchRecordCheckingSchema(refreshed, key: [.integer(2)]) == .row([.integer(2), .text("two")])
        )
        #expect(
            try reader.fetchRecordCheckingSchema(refreshed, key: [.integer(2)]) == .row([.integer(2), .text("two")])
        )
    }

    /// A change made before the first lookup (the cache older than the schema) is caught by the proof's `PRAGMA`.
    @Test func changeBeforeTheFirstLookup_isReported() throws {
        let table = try cachedT()
        try writer.execute(sql: "ALTER TABLE t ADD COLUMN b DEFAULT 'bee'")
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .schemaChanged)
        let refreshed = try cachedT()
        #expect(
            try reader.fetchRecordCheckingSchema(refreshed, key: [.integer(1)])
                == .row([.integer(1), .text("one"), .text("bee")])
        )
    }

    @Test func droppedTable_throws_andARecreatedOneIsReadWithItsNewKey() throws {
        let table = try cachedT()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("one")]))
        try writer.execute(sql: "DROP TABLE t")
        #expect(throws: DatabaseError.self) { try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) }
        #expect(try reader.recordTable(named: "t") == nil)
        try writer.execute(sql: "CREATE TABLE t(code TEXT PRIMARY KEY, a)")
        try writer.execute(sql: "INSERT INTO t VALUES ('1', 'text key')")
        let recreated = try cachedT()
        #expect(recreated.key == ["code"])
        #expect(
            try reader.fetchRecordCheckingSchema(recreated, key: [.text("1")]) == .row([.text("1"), .text("text key")])
        )
    }

    /// Inside a transaction the lookup reads that transaction's snapshot and leaves it open.
    @Test func insideATransaction_leavesItOpen() throws {
        let table = try cachedT()
        try reader.beginTransaction()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("one")]))
        try writer.execute(sql: "INSERT INTO t VALUES (3, 'three')")
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(3)]) == .noRow)
        #expect(reader.isInTransaction)
        try reader.commit()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(3)]) == .row([.integer(3), .text("three")]))
    }

    /// The lookup's statement lives apart from the statement cache: clearing the cache changes nothing.
    @Test func clearingTheStatementCache_keepsLookupsWorking() throws {
        let table = try cachedT()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("one")]))
        reader.clearStatementCache()
        #expect(try reader.fetchRecordCheckingSchema(table, key: [.integer(2)]) == .row([.integer(2), .text("two")]))
    }
}

/// The per-connection table cache holds names clients chose, unknown ones included: it stays bounded.
@Suite struct RecordTableCacheBoundTests {
    @Test func namesOfNoTable_doNotGrowTheCachePastItsCapacity() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
        try db.execute(sql: "INSERT INTO t VALUES (1, 'one')")
        for index in 0..<(RecordTableCache.capacity * 3) {
            #expect(try db.recordTable(named: "missing_\(index)") == nil)
            #expect(db.recordTableCache.tables.count <= RecordTableCache.capacity)
        }
        // Still correct after starting over: the real table is found and its lookup proven again.
        let table = try #require(try db.recordTable(named: "t"))
        #expect(try db.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("one")]))
        #expect(db.recordTableCache.checkedLookups.count == 1)
    }

    @Test func lookupsOfManyTables_stayWithinTheCapacity() throws {
        let db = try makeMemoryDatabase()
        let count = RecordTableCache.capacity + 10
        for index in 0..<count {
            try db.execute(sql: "CREATE TABLE t\(index)(id INTEGER PRIMARY KEY, a)")
            try db.execute(sql: "INSERT INTO t\(index) VALUES (1, 'x')")
        }
        for index in 0..<count {
            let table = try #require(try db.recordTable(named: "t\(index)"))
            #expect(try db.fetchRecordCheckingSchema(table, key: [.integer(1)]) == .row([.integer(1), .text("x")]))
            #expect(db.recordTableCache.checkedLookups.count <= RecordTableCache.capacity)
        }
    }
}
