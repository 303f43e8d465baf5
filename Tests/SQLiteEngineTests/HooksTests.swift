import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// Safety settings, authorizer and limits.
@Suite struct HooksTests {
    /// Checks that defensive mode blocks writing the schema table, and that turning it off allows it.
    @Test func defensive_blocksSchemaWrites() throws {
        let attack = "UPDATE sqlite_schema SET sql = 'CREATE TABLE t(y)' WHERE name = 't'"
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "PRAGMA writable_schema = ON")
        let error = try #require(databaseError { try db.execute(sql: attack) })
        #expect(error.message.contains("may not be modified"))

        var configuration = Configuration()
        configuration.defensive = false
        let open = try makeMemoryDatabase(configuration)
        try open.execute(sql: "CREATE TABLE t(x)")
        try open.execute(sql: "PRAGMA writable_schema = ON")
        try open.execute(sql: attack)
    }

    /// Checks that with the schema not trusted, a view cannot call an application function not marked innocuous.
    @Test func trustedSchema_offBlocksFunctionsInSchema() throws {
        for trusted in [false, true] {
            var configuration = Configuration()
            configuration.trustedSchema = trusted
            let db = try makeMemoryDatabase(configuration)
            try db.createFunction("f", argumentCount: 0) { _ in 1 }
            try db.execute(sql: "CREATE VIEW v AS SELECT f() AS x")
            if trusted {
                #expect(try db.int64(sql: "SELECT x FROM v") == 1)
            } else {
                let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT x FROM v") })
                #expect(error.message.contains("unsafe use of f()"))
            }
        }
    }

    /// Checks that double-quoted strings are identifiers only (no fallback to string literals) by default.
    @Test func doubleQuotedStrings_offByDefault() throws {
        let db = try makeMemoryDatabase()
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT \"hello\"") })
        #expect(error.message.contains("no such column"))
        var configuration = Configuration()
        configuration.doubleQuotedStringLiterals = true
        let lenient = try makeMemoryDatabase(configuration)
        #expect(try lenient.string(sql: "SELECT \"hello\"") == "hello")
    }

    /// Checks that load_extension() is refused.
    @Test func extensionLoading_off() throws {
        let db = try makeMemoryDatabase()
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT load_extension('/nonexistent/ext')") })
        #expect(error.message == "not authorized")
    }

    /// Checks that an authorizer sees the action and its arguments, and that denied statements fail with SQLITE_AUTH.
    @Test func authorizer_deniesAndReportsContext() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        let seen = Mutex<[AuthorizerContext]>([])
        db.setAuthorizer { context in
            seen.withLock { $0.append(context) }
            switch context.action {
            case .attach, .detach: return .deny
            case .read where context.arg2 == "x": return .ignore
            default: return .ok
            }
        }
        let error = try #require(databaseError { try db.execute(sql: "ATTACH DATABASE ':memory:' AS other") })
        #expect(error.resultCode == .SQLITE_AUTH)
        #expect(error.message == "not authorized")
        try db.execute(sql: "INSERT INTO t VALUES (5)")
        #expect(try db.scalar(sql: "SELECT x FROM t") == .null)
        let reads = seen.withLock { $0.filter { $0.action == .read } }
        #expect(reads.contains { $0.arg1 == "t" && $0.arg2 == "x" && $0.arg3 == "main" && $0.arg4 == nil })
        #expect(AuthorizerAction.read.description == "READ")
        db.setAuthorizer(nil)
        #expect(try db.scalar(sql: "SELECT x FROM t") == .integer(5))
    }

    /// Checks that installing an authorizer applies to statements prepared (and cached) before it.
    @Test func authorizer_invalidatesPreparedStatements() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        let statement = try db.cachedStatement(sql: "SELECT x FROM t")
        db.setAuthorizer { context in context.action == .read ? .deny : .ok }
        let error = try #require(databaseError { _ = try statement.step() })
        #expect(error.resultCode == .SQLITE_AUTH)
    }

    /// Checks that an authorizer installed in prepareDatabase is active from the start.
    @Test func authorizer_installedInPrepareDatabase() throws {
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            db.setAuthorizer { $0.action == .pragma ? .deny : .ok }
        }
        let db = try makeMemoryDatabase(configuration)
        #expect(databaseError { _ = try db.scalar(sql: "PRAGMA user_version") }?.resultCode == .SQLITE_AUTH)
    }

    /// Checks setLimit returns the previous value and the limit is enforced; configured limits apply at open.
    @Test func limits_setAndEnforced() throws {
        let db = try makeMemoryDatabase()
        let original = db.limit(.length)
        #expect(db.setLimit(.length, 100) == original)
        #expect(db.limit(.length) == 100)
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT zeroblob(1000)") })
        #expect(error.resultCode == .SQLITE_TOOBIG)

        var configuration = Configuration()
        configuration.limits = [.variableNumber: 2, .attached: 0]
        let limited = try makeMemoryDatabase(configuration)
        #expect(limited.limit(.variableNumber) == 2)
        #expect(
            databaseError { _ = try limited.makeStatement(sql: "SELECT ?, ?, ?") }?.message.contains(
                "too many SQL variables"
            ) == true
        )
        #expect(
            databaseError { try limited.execute(sql: "ATTACH ':memory:' AS a") }?.message.contains("too many attached")
                == true
        )
    }

    /// Checks statement read-only detection.
    @Test func statement_isReadOnly() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        #expect(try db.makeStatement(sql: "SELECT * FROM t").isReadOnly)
        #expect(try db.makeStatement(sql: "INSERT INTO t VALUES (1)").isReadOnly == false)
        #expect(try db.makeStatement(sql: "CREATE TABLE u(x)").isReadOnly == false)
        #expect(try db.makeStatement(sql: "BEGIN").isReadOnly)
    }
}
