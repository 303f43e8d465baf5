import SQLiteEngine
import Testing

@testable import SQLiteService

/// How a denial recorded by the SQL policy turns into the contract's 403 `SQLITE_AUTH`, and that a record never
/// outlives the error it belongs to.
@Suite struct PolicyDenialMappingTests {
    /// An in-memory connection with the reader's policy installed, as the server prepares it.
    static func readerDatabase() throws -> Database {
        let db = try Database(path: ":memory:")
        SQLPolicy.install(on: db, role: .reader)
        return db
    }

    static func sqliteError(_ sql: String, on db: Database) -> DatabaseError? {
        do {
            _ = try db.makeStatement(sql: sql)
            return nil
        } catch {
            return error as? DatabaseError
        }
    }

    /// A statement the policy denies is reported as 403 `SQLITE_AUTH` with the policy's reason.
    @Test func deniedStatement_isSQLITEAUTHWithReason() throws {
        let db = try Self.readerDatabase()
        let error = try #require(Self.sqliteError("ATTACH ':memory:' AS other", on: db))
        let mapped = APIError(error, db: db)
        #expect(mapped.status == 403)
        #expect(mapped.code == "SQLITE_AUTH")
        #expect(mapped.message.contains("denied by the SQL policy"))
        #expect(PolicyRegistry.shared.state(for: db)?.takeDenial() == nil)
    }

    /// A pragma's table-valued form is denied when the statement is prepared (a cluster node prepares statements
    /// on its copy of the schema and never runs them), with the pragma's reason; an allowed pragma's form and a
    /// table a client named like one still prepare (issue #23).
    @Test func tableValuedPragma_isDeniedAtPrepare_withThePragmasReason() throws {
        let db = try Self.readerDatabase()
        for sql in ["SELECT file FROM pragma_database_list", "SELECT count(*) FROM main.PRAGMA_DATABASE_LIST"] {
            let error = try #require(Self.sqliteError(sql, on: db), "\(sql) prepared")
            let mapped = APIError(error, db: db)
            #expect(mapped.code == "SQLITE_AUTH", "\(sql)")
            #expect(mapped.message == "denied by the SQL policy: PRAGMA database_list is not allowed", "\(sql)")
        }
        let setting = try #require(Self.sqliteError("SELECT * FROM pragma_cache_size", on: db))
        #expect(APIError(setting, db: db).message.hasSuffix("PRAGMA cache_size is not allowed"))
        #expect(Self.sqliteError("SELECT name FROM pragma_table_info('sqlite_master')", on: db) == nil)
        #expect(Self.sqliteError("SELECT user_version FROM pragma_user_version", on: db) == nil)
        let writer = try Database(path: ":memory:")
        try writer.execute(sql: "CREATE TABLE pragma_notes(x)")
        SQLPolicy.install(on: writer, role: .writer)
        #expect(Self.sqliteError("SELECT x FROM pragma_notes", on: writer) == nil)
    }

    /// The server's own tables (`_sqlited_…`) are out of clients' reach on every connection: read, written,
    /// created, altered or dropped; the leader of a cluster lets the server's statements through.
    @Test func serverTables_areDeniedToClients_allowedOnTheLeader() throws {
        let writer = try Database(path: ":memory:")
        try writer.execute(sql: "CREATE TABLE _sqlited_cursor_key(id INTEGER PRIMARY KEY, key BLOB)")
        SQLPolicy.install(on: writer, role: .writer)
        for sql in [
            "SELECT key FROM _sqlited_cursor_key", "SELECT count(*) FROM main._SQLITED_CURSOR_KEY",
            "INSERT INTO _sqlited_cursor_key VALUES (2, x'00')", "UPDATE _sqlited_cursor_key SET key = NULL",
            "DELETE FROM _sqlited_cursor_key", "DROP TABLE _sqlited_cursor_key", "CREATE TABLE _sqlited_mine(a)",
            "ALTER TABLE _sqlited_cursor_key ADD COLUMN b", "CREATE INDEX i ON _sqlited_cursor_key(key)",
        ] {
            let error = try #require(Self.sqliteError(sql, on: writer), "\(sql) prepared")
            let mapped = APIError(error, db: writer)
            #expect(mapped.code == "SQLITE_AUTH", "\(sql)")
            #expect(mapped.message.hasSuffix("is the server's own table"), "\(sql): \(mapped.message)")
        }
        let read = AuthorizerContext(action: .read, arg1: "_sqlited_cursor_key", arg2: "key", arg3: "main", arg4: nil)
        #expect(SQLPolicy.denialReason(for: read, role: .writer) != nil)
        #expect(SQLPolicy.denialReason(for: read, role: .writer, allowsServerTables: true) == nil)
        // Other names are the client's, `sqlited_` without the underscore included.
        let other = AuthorizerContext(action: .read, arg1: "sqlited_notes", arg2: "a", arg3: "main", arg4: nil)
        #expect(SQLPolicy.denialReason(for: other, role: .writer) == nil)
    }

    /// A SQLITE_SCHEMA that comes with a denial (SQLite reports the schema change over the denial when both
    /// happen in one prepare) is the denial; a denial record left by anything is consumed by the next error
    /// mapped for the connection, whatever its code, so it cannot mislabel a later genuine SQLITE_SCHEMA.
    @Test func denialRecord_isConsumedByTheNextErrorWhateverItsCode() throws {
        let db = try Self.readerDatabase()
        let state = try #require(PolicyRegistry.shared.state(for: db))
        let schema = DatabaseError(
            kind: .sqlite,
            extendedResultCode: .SQLITE_SCHEMA,
            message: "database schema has changed"
        )

        state.recordDenial("creating a view")
        #expect(APIError(schema, db: db).code == "SQLITE_AUTH")

        state.recordDenial("stale")
        let syntax = try #require(Self.sqliteError("SELEC 1", on: db))
        #expect(APIError(syntax, db: db).code == "SQLITE_ERROR")
        #expect(APIError(schema, db: db).code == "SQLITE_SCHEMA")
    }
}
