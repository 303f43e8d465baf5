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
