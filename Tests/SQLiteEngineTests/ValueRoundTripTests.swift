import Foundation
import Testing

@testable import SQLiteEngine

/// Values survive a round trip through SQLite exactly.
@Suite struct ValueRoundTripTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE v(x)")
    }

    private func roundTrip(_ value: DatabaseValue) throws -> (DatabaseValue, String) {
        try db.execute(sql: "DELETE FROM v")
        try db.execute(sql: "INSERT INTO v VALUES (?)", arguments: [value])
        let row = try #require(try db.fetchOne(sql: "SELECT x, typeof(x) FROM v"))
        return (row[0], row.string(at: 1) ?? "")
    }

    /// Checks that NULL and a zero-length blob stay distinct in both directions.
    @Test func nullAndEmptyBlobAreDistinct() throws {
        let (empty, emptyType) = try roundTrip(.blob(Data()))
        #expect(empty == .blob(Data()))
        #expect(emptyType == "blob")
        let (null, nullType) = try roundTrip(.null)
        #expect(null == .null)
        #expect(nullType == "null")
        #expect(try db.scalar(sql: "SELECT x'' IS NULL") == .integer(0))
        #expect(try db.scalar(sql: "SELECT x''") == .blob(Data()))
        let statement = try db.makeStatement(sql: "SELECT x'', NULL")
        #expect(try statement.step())
        #expect(statement.columnType(at: 0) == .blob)
        #expect(statement.data(at: 0) == Data())
        #expect(statement.data(at: 1) == nil)
        statement.withUnsafeBlobBytes(at: 0) { #expect($0.isEmpty) }
    }

    /// Checks that an empty string is empty TEXT, not NULL.
    @Test func emptyTextIsNotNull() throws {
        let (value, type) = try roundTrip(.text(""))
        #expect(value == .text(""))
        #expect(type == "text")
    }

    /// Checks that text with embedded NUL bytes round-trips whole.
    @Test func textWithEmbeddedNULRoundTrips() throws {
        let text = "a\u{0}b\u{0}"
        let (value, _) = try roundTrip(.text(text))
        #expect(value == .text(text))
        #expect(try db.int64(sql: "SELECT length(CAST(x AS BLOB)) FROM v") == 4)
        let statement = try db.makeStatement(sql: "SELECT x FROM v")
        #expect(try statement.step())
        statement.withUnsafeTextBytes(at: 0) { #expect(Array($0) == [97, 0, 98, 0]) }
        #expect(statement.string(at: 0) == text)
    }

    /// Checks 64-bit integer extremes and 2^53+1 stay exact.
    @Test func integersStayExact() throws {
        for int in [Int64.min, Int64.max, 9_007_199_254_740_993, -9_007_199_254_740_993, 0] {
            let (value, type) = try roundTrip(.integer(int))
            #expect(value == .integer(int))
            #expect(type == "integer")
        }
        #expect(try db.scalar(sql: "SELECT 9223372036854775807 + 1")?.columnType == .real)
    }

    /// Checks doubles, including negative zero and infinities.
    @Test func doublesRoundTrip() throws {
        for double in [0.1, -0.0, 1e308, -Double.infinity, Double.infinity, Double.leastNonzeroMagnitude] {
            let (value, _) = try roundTrip(.real(double))
            guard case .real(let read) = value else {
                Issue.record("not REAL")
                continue
            }
            #expect(read == double)
            #expect(read.sign == double.sign)
        }
        let (nan, _) = try roundTrip(.real(.nan))
        #expect(nan == .null)
    }

    /// Checks non-ASCII text: German umlauts and emoji.
    @Test func unicodeTextRoundTrips() throws {
        for text in ["übertest", "😀👍🏽 family: 👨‍👩‍👧", "日本語"] {
            let (value, _) = try roundTrip(.text(text))
            #expect(value == .text(text))
        }
        #expect(try db.int64(sql: "SELECT length('übertest')") == 8)
    }

    /// Checks blobs with arbitrary bytes.
    @Test func blobsRoundTrip() throws {
        let data = Data((0...255).map { UInt8($0) })
        let (value, _) = try roundTrip(.blob(data))
        #expect(value == .blob(data))
    }

    /// Checks that a function returning empty text and an empty blob gives them, not NULL.
    @Test func functionResultsKeepEmptyValues() throws {
        try db.createFunction("empty_text", argumentCount: 0) { _ in "" }
        try db.createFunction("empty_blob", argumentCount: 0) { _ in Data() }
        #expect(try db.scalar(sql: "SELECT empty_text()") == .text(""))
        #expect(try db.scalar(sql: "SELECT empty_blob()") == .blob(Data()))
    }
}
