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
