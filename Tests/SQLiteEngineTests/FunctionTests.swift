import Foundation
import Testing

@testable import SQLiteEngine

/// Custom SQL functions.
@Suite struct FunctionTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
    }

    /// Checks a function with typed arguments and each result type.
    @Test func createFunction_typedArgumentsAndResults() throws {
        try db.createFunction("describe", argumentCount: 1) { arguments in
            switch arguments[0] {
            case .null: "null"
            case .integer(let int): "int \(int)"
            case .real(let double): "real \(double)"
            case .text(let text): "text \(text)"
            case .blob(let data): "blob \(data.count)"
            }
        }
        #expect(try db.string(sql: "SELECT describe(NULL)") == "null")
        #expect(try db.string(sql: "SELECT describe(9223372036854775807)") == "int 9223372036854775807")
        #expect(try db.string(sql: "SELECT describe(1.5)") == "real 1.5")
        #expect(try db.string(sql: "SELECT describe('a' || char(0) || 'b')") == "text a\u{0}b")
        #expect(try db.string(sql: "SELECT describe(x'')") == "blob 0")
        #expect(try db.string(sql: "SELECT describe(?)", arguments: [.blob(Data([1, 2, 3]))]) == "blob 3")

        try db.createFunction("twice", argumentCount: 1) { arguments in
            Int64.fromDatabaseValue(arguments[0]).map { $0 * 2 }
        }
        #expect(try db.scalar(sql: "SELECT twice(21)") == .integer(42))
        #expect(try db.scalar(sql: "SELECT twice('x')") == .null)
    }

    /// Checks variadic functions and that a fixed argument count is enforced.
    @Test func createFunction_argumentCounts() throws {
        try db.createFunction("count_args") { arguments in arguments.count }
        #expect(try db.int64(sql: "SELECT count_args()") == 0)
        #expect(try db.int64(sql: "SELECT count_args(1, 'a', NULL)") == 3)
        try db.createFunction("one", argumentCount: 1) { $0[0] }
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT one(1, 2)") })
        #expect(error.message.contains("wrong number of arguments"))
    }

    /// Checks that a thrown DatabaseError surfaces with its message and code, and any other error with its message.
    @Test func createFunction_errorsSurfaceWithMessageAndCode() throws {
        try db.createFunction("fail", argumentCount: 0) { _ in
            throw DatabaseError(kind: .sqlite, extendedResultCode: .SQLITE_CONSTRAINT_CHECK, message: "value too big")
        }
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT fail()") })
        #expect(error.message == "value too big")
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)

        struct Oops: Error, CustomStringConvertible {
            var description: String { "oops happened" }
        }
        try db.createFunction("oops", argumentCount: 0) { _ in throw Oops() }
        let other = try #require(databaseError { _ = try db.scalar(sql: "SELECT oops()") })
        #expect(other.message == "oops happened")
        #expect(other.resultCode == .SQLITE_ERROR)
        #expect(try db.int64(sql: "SELECT 1") == 1)
    }

    /// Checks that a function can be replaced and survives a statement cache clear.
    @Test func createFunction_replaces() throws {
        try db.createFunction("f", argumentCount: 0) { _ in 1 }
        #expect(try db.int64(sql: "SELECT f()") == 1)
        try db.createFunction("f", argumentCount: 0) { _ in 2 }
        db.clearStatementCache()
        #expect(try db.int64(sql: "SELECT f()") == 2)
    }
}
