import Foundation
import Testing

@testable import SQLiteEngine

/// Conversions between Swift values and ``DatabaseValue``.
@Suite struct DatabaseValueTests {
    /// Checks that every supported Swift type stores the expected storage class.
    @Test func databaseValue_mapsSwiftTypesToStorageClasses() {
        #expect(Int(7).databaseValue == .integer(7))
        #expect(Int32(-3).databaseValue == .integer(-3))
        #expect(Int64.max.databaseValue == .integer(Int64.max))
        #expect(2.5.databaseValue == .real(2.5))
        #expect("abc".databaseValue == .text("abc"))
        #expect(Data([1, 2]).databaseValue == .blob(Data([1, 2])))
        #expect(true.databaseValue == .integer(1))
        #expect(false.databaseValue == .integer(0))
        #expect((nil as Int?).databaseValue == .null)
        #expect((5 as Int?).databaseValue == .integer(5))
        #expect(Date(timeIntervalSince1970: 1.5).databaseValue == .real(1.5))
    }

    /// Checks lossless conversions succeed and lossy ones return nil.
    @Test func fromDatabaseValue_convertsOnlyWithoutLoss() {
        #expect(Int64.fromDatabaseValue(.real(3.0)) == 3)
        #expect(Int64.fromDatabaseValue(.real(3.5)) == nil)
        #expect(Int64.fromDatabaseValue(.text("42")) == 42)
        #expect(Int64.fromDatabaseValue(.null) == nil)
        #expect(Int64.fromDatabaseValue(.blob(Data())) == nil)
        #expect(Int32.fromDatabaseValue(.integer(Int64(Int32.max) + 1)) == nil)
        #expect(Double.fromDatabaseValue(.integer(2)) == 2.0)
        #expect(String.fromDatabaseValue(.integer(12)) == "12")
        #expect(String.fromDatabaseValue(.null) == nil)
        #expect(Bool.fromDatabaseValue(.integer(2)) == true)
        #expect(Bool.fromDatabaseValue(.integer(0)) == false)
        #expect(Data.fromDatabaseValue(.text("hi")) == Data("hi".utf8))
        #expect(Optional<Int>.fromDatabaseValue(.null) == .some(nil))
    }

    /// Checks that a date stored as text uses the SQLite format in UTC and reads back to the millisecond.
    @Test func date_roundTripsAsFormattedText() throws {
        let date = Date(timeIntervalSince1970: 1_709_211_909.25)  // 2024-02-29 13:05:09.250 UTC
        #expect(date.databaseText == .text("2024-02-29 13:05:09.250"))
        let parsed = try #require(Date.fromDatabaseValue(.text("2024-02-29 13:05:09.250")))
        #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005)
        #expect(Date.fromDatabaseValue(.text("1969-12-31 23:59:59")) == Date(timeIntervalSince1970: -1))
        #expect(Date.fromDatabaseValue(.text("2024-02-29T13:05")) == Date(timeIntervalSince1970: 1_709_211_900))
        #expect(Date.fromDatabaseValue(.text("yesterday")) == nil)
        #expect(Date(timeIntervalSince1970: -0.5).databaseText == .text("1969-12-31 23:59:59.500"))
    }

    /// Checks that SQLite's own date functions agree with the text format.
    @Test func date_textIsUnderstoodBySQLite() throws {
        let db = try makeMemoryDatabase()
        let date = Date(timeIntervalSince1970: 1_000_000_000.125)
        let seconds = try db.double(sql: "SELECT unixepoch(?) + 0.0", arguments: [date.databaseText])
        #expect(seconds == 1_000_000_000)
        let text = try db.string(
            sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', ?, 'unixepoch')",
            arguments: [date.databaseValue]
        )
        #expect(text == "2001-09-09 01:46:40.125")
    }

    /// Checks that a value's description names only its storage class, never its content.
    @Test func description_neverShowsContent() {
        #expect(DatabaseValue.text("secret").description == "TEXT")
        #expect(DatabaseValue.integer(123_456).description == "INTEGER")
        let positional: StatementArguments = [.text("secret"), .integer(42)]
        #expect("\(positional)" == "positional(2 values)")
        let named: StatementArguments = ["id": .text("secret")]
        #expect(String(reflecting: named) == "named(id)")
    }
}
