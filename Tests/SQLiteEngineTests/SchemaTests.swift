import Testing

@testable import SQLiteEngine

/// Schema helpers.
@Suite struct SchemaTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.executeScript(
            """
            CREATE TABLE Users(id INTEGER PRIMARY KEY, email TEXT NOT NULL DEFAULT 'none', "we'ird" INT DEFAULT 0);
            CREATE INDEX users_email ON Users(email);
            CREATE VIEW names AS SELECT email FROM Users;
            CREATE TEMP TABLE scratch(x);
            """
        )
    }

    /// Checks tableExists case-insensitively, in main and temp, and with a name that would break spliced SQL.
    @Test func tableExists_caseInsensitiveMainAndTemp() throws {
        #expect(try db.tableExists("users"))
        #expect(try db.tableExists("USERS"))
        #expect(try db.tableExists("scratch"))
        #expect(try db.tableExists("names") == false)
        #expect(try db.tableExists("nope") == false)
        #expect(try db.tableExists("x' OR '1'='1") == false)
    }

    /// Checks columnExists.
    @Test func columnExists_caseInsensitive() throws {
        #expect(try db.columnExists("EMAIL", in: "users"))
        #expect(try db.columnExists("we'ird", in: "Users"))
        #expect(try db.columnExists("nope", in: "Users") == false)
        #expect(try db.columnExists("email", in: "nope") == false)
    }

    /// Checks the schema listing with type, name, table name and SQL, including temp objects.
    @Test func schema_listsObjects() throws {
        let objects = try db.schema()
        let table = try #require(objects.first { $0.name == "Users" })
        #expect(table.type == "table")
        #expect(table.tblName == "Users")
        #expect(table.sql?.hasPrefix("CREATE TABLE Users") == true)
        #expect(table.isTemporary == false)
        let index = try #require(objects.first { $0.name == "users_email" })
        #expect(index.type == "index")
        #expect(index.tblName == "Users")
        #expect(objects.contains { $0.name == "names" && $0.type == "view" })
        #expect(objects.contains { $0.name == "scratch" && $0.isTemporary })
        #expect(objects.contains { $0.isInternal } == false)
        try db.execute(sql: "CREATE TABLE u(a UNIQUE)")
        let automatic = try #require(try db.schema().first { $0.isInternal })
        #expect(automatic.sql == nil)
    }

    /// Checks tableInfo fields, and nil for a missing table.
    @Test func tableInfo_describesColumns() throws {
        let columns = try #require(try db.tableInfo("users"))
        #expect(columns.map(\.name) == ["id", "email", "we'ird"])
        #expect(
            columns[0]
                == ColumnInfo(
                    cid: 0,
                    name: "id",
                    type: "INTEGER",
                    notNull: false,
                    defaultValue: nil,
                    primaryKeyIndex: 1
                )
        )
        #expect(
            columns[1]
                == ColumnInfo(
                    cid: 1,
                    name: "email",
                    type: "TEXT",
                    notNull: true,
                    defaultValue: "'none'",
                    primaryKeyIndex: 0
                )
        )
        #expect(columns[2].defaultValue == "0")
        #expect(try db.tableInfo("nope") == nil)
    }

    /// Checks user_version and application_id.
    @Test func userVersionAndApplicationID() throws {
        #expect(try db.userVersion == 0)
        try db.setUserVersion(42)
        #expect(try db.userVersion == 42)
        try db.setApplicationID(-7)
        #expect(try db.applicationID == -7)
    }

    /// Checks the scalar conveniences.
    @Test func scalar_conveniences() throws {
        #expect(try db.scalar(sql: "SELECT 1 WHERE 0") == nil)
        #expect(try db.scalar(sql: "SELECT NULL") == .null)
        #expect(try db.int64(sql: "SELECT ?", arguments: [5]) == 5)
        #expect(try db.string(sql: "SELECT 'x'") == "x")
        #expect(try db.double(sql: "SELECT 0.5") == 0.5)
        #expect(try db.string(sql: "SELECT NULL") == nil)
    }

    /// Checks schemaMayFailPartWay: a FAIL conflict clause or `RAISE(FAIL)` trigger makes it true, and the cached
    /// answer follows the schema (a drop, and another connection's change, are seen).
    @Test func schemaMayFailPartWay_followsTheSchema() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fail.sqlite")
        let db = try Database(path: path)
        let other = try Database(path: path)
        #expect(!db.schemaMayFailPartWay)
        try db.execute(sql: "CREATE TABLE u(k TEXT UNIQUE ON CONFLICT FAIL)")
        #expect(db.schemaMayFailPartWay)
        try db.execute(sql: "DROP TABLE u")
        #expect(!db.schemaMayFailPartWay)
        try other.execute(sql: "CREATE TABLE v(x)")
        try other.execute(sql: "CREATE TRIGGER v_x BEFORE INSERT ON v BEGIN SELECT RAISE(FAIL, 'no'); END")
        #expect(db.schemaMayFailPartWay)
        try other.execute(sql: "DROP TRIGGER v_x")
        #expect(!db.schemaMayFailPartWay)
    }
}
