import Testing

@testable import SQLiteEngine

/// Record tables: key discovery, what counts as a record table, hostile names, the schema cache.
@Suite struct RecordTableTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
    }

    @Test func keys_areDiscoveredInPrimaryKeyOrder() throws {
        try db.execute(sql: "CREATE TABLE a(id INTEGER PRIMARY KEY, x)")
        try db.execute(sql: "CREATE TABLE b(x TEXT, y INTEGER, z, PRIMARY KEY(z, x)) WITHOUT ROWID")
        try db.execute(sql: "CREATE TABLE c(x, y)")
        #expect(try db.recordTable(named: "a")?.key == ["id"])
        #expect(try db.recordTable(named: "b")?.key == ["z", "x"])
        let c = try #require(try db.recordTable(named: "C"))
        #expect(c.key == ["rowid"])
        #expect(c.usesRowid)
        #expect(c.name == "c")
        #expect(try db.recordTable(named: "a")?.usesRowid == false)
    }

    @Test func viewsVirtualAndInternalTables_areNotRecordTables() throws {
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "CREATE VIEW v AS SELECT x FROM t")
        try db.execute(sql: "CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)")
        try db.execute(sql: "CREATE INDEX t_x ON t(x)")
        try db.execute(sql: "ANALYZE")
        #expect(try db.recordTable(named: "v") == nil)
        #expect(try db.recordTable(named: "r") == nil)
        #expect(try db.recordTable(named: "sqlite_stat1") == nil)
        #expect(try db.recordTable(named: "sqlite_schema") == nil)
        #expect(try db.recordTables().map(\.name).contains("t"))
        #expect(!(try db.recordTables().map(\.name).contains("v")))
    }

    @Test func hostileNames_areMatchedAndQuoted() throws {
        let table = #"x"; DROP TABLE y; --"#
        try db.execute(sql: "CREATE TABLE y(z)")
        try db.execute(sql: #"CREATE TABLE "x""; DROP TABLE y; --"("my col" TEXT PRIMARY KEY, "quo""te", "naïve ü")"#)
        let record = try #require(try db.recordTable(named: table))
        #expect(record.key == ["my col"])
        _ = try db.insertRecords(
            into: record,
            rows: [[("my col", .text("a")), (#"quo"te"#, .integer(1)), ("naïve ü", .text("é"))]],
            onConflict: .error
        )
        var query = RecordQuery(table: record)
        query.filters = [RecordFilter(column: #"quo"te"#, op: .equal, values: [.integer(1)])]
        #expect(try db.fetchRecordPage(query).rows == [[.text("a"), .integer(1), .text("é")]])
        #expect(try db.tableExists("y"))
    }

    /// A schema change, on this connection or another, is seen by the next lookup.
    @Test func schemaChanges_refreshTheCache() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let first = try Database(path: path)
        let second = try Database(path: path)
        try first.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
        #expect(try second.recordTable(named: "t")?.columns.map(\.name) == ["id", "a"])
        try first.execute(sql: "ALTER TABLE t ADD COLUMN b")
        #expect(try second.recordTable(named: "t")?.columns.map(\.name) == ["id", "a", "b"])
        #expect(try second.recordTable(named: "u") == nil)
        try first.execute(sql: "CREATE TABLE u(x)")
        #expect(try second.recordTable(named: "u") != nil)
    }

    /// The one-statement lookup reads the schema version with the row: a change on another connection is reported,
    /// never answered with the stale table's columns.
    @Test func checkedLookup_findsTheRow_orReportsASchemaChange() throws {
        let directory = try TemporaryDirectory()
        let first = try Database(path: directory.path())
        let second = try Database(path: directory.path())
        try first.execute(sql: #"CREATE TABLE "t ""x"(id INTEGER PRIMARY KEY, a)"#)
        try first.execute(sql: #"INSERT INTO "t ""x" VALUES (7, 'seven')"#)
        #expect(second.cachedRecordTable(named: #"t "x"#) == nil)
        let table = try #require(try second.recordTable(named: #"t "x"#))
        #expect(second.cachedRecordTable(named: #"T "X"#) == table)
        #expect(try second.fetchRecordCheckingSchema(table, key: [.integer(7)]) == .row([.integer(7), .text("seven")]))
        #expect(try second.fetchRecordCheckingSchema(table, key: [.integer(8)]) == .noRow)
        try first.execute(sql: #"ALTER TABLE "t ""x" ADD COLUMN b DEFAULT 'bee'"#)
        #expect(try second.fetchRecordCheckingSchema(table, key: [.integer(7)]) == .schemaChanged)
        let refreshed = try #require(try second.recordTable(named: #"t "x"#))
        #expect(
            try second.fetchRecordCheckingSchema(refreshed, key: [.integer(7)])
                == .row([.integer(7), .text("seven"), .text("bee")])
        )
    }

    @Test func checkedLookup_compositeAndRowidKeys() throws {
        try db.execute(sql: "CREATE TABLE p(a TEXT, b INTEGER, v, PRIMARY KEY(b, a)) WITHOUT ROWID")
        try db.execute(sql: "INSERT INTO p VALUES ('x', 1, 'one')")
        try db.execute(sql: "CREATE TABLE r(v)")
        try db.execute(sql: "INSERT INTO r(rowid, v) VALUES (42, 'answer')")
        let p = try #require(try db.recordTable(named: "p"))
        let r = try #require(try db.recordTable(named: "r"))
        #expect(
            try db.fetchRecordCheckingSchema(p, key: [.integer(1), .text("x")])
                == .row([.integer(1), .text("x"), .text("one")])
        )
        #expect(try db.fetchRecordCheckingSchema(p, key: [.integer(1), .text("y")]) == .noRow)
        #expect(try db.fetchRecordCheckingSchema(r, key: [.integer(42)]) == .row([.integer(42), .text("answer")]))
        #expect(throws: DatabaseError.self) { try db.fetchRecordCheckingSchema(p, key: [.integer(1)]) }
    }

    @Test func valueKinds_followSQLiteAffinity() {
        #expect(RecordValueKind(declaredType: "INTEGER") == .integer)
        #expect(RecordValueKind(declaredType: "bigint") == .integer)
        #expect(RecordValueKind(declaredType: "VARCHAR(20)") == .text)
        #expect(RecordValueKind(declaredType: "BLOB") == .blob)
        #expect(RecordValueKind(declaredType: "") == .untyped)
        #expect(RecordValueKind(declaredType: "REAL") == .number)
        #expect(RecordValueKind(declaredType: "DECIMAL(10,2)") == .number)
    }
}
