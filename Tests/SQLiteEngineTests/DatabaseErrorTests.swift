import Testing

@testable import SQLiteEngine

/// Result codes and errors.
@Suite struct DatabaseErrorTests {
    /// Checks names and primary codes of primary and extended codes.
    @Test func resultCode_namesAndPrimaryCodes() {
        #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE.rawValue == 2067)
        #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE.primary == .SQLITE_CONSTRAINT)
        #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE.name == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(ResultCode.SQLITE_BUSY_SNAPSHOT.rawValue == 517)
        #expect(ResultCode.SQLITE_BUSY.name == "SQLITE_BUSY")
        #expect(ResultCode.SQLITE_IOERR_CORRUPTFS.name == "SQLITE_IOERR_CORRUPTFS")
        #expect(ResultCode(rawValue: 99 << 8 | 19).name == "SQLITE_CONSTRAINT")
        #expect(ResultCode.SQLITE_DONE.rawValue == 101)
        #expect(ResultCode.SQLITE_ERROR.primary == .SQLITE_ERROR)
        #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE.description == "SQLITE_CONSTRAINT_UNIQUE (2067)")
    }

    /// Checks that a primary code pattern matches its extended codes.
    @Test func resultCode_patternMatchesExtendedCodes() {
        let code = ResultCode.SQLITE_CONSTRAINT_NOTNULL
        switch code {
        case .SQLITE_BUSY: Issue.record("matched the wrong code")
        case .SQLITE_CONSTRAINT: break
        default: Issue.record("primary pattern did not match")
        }
    }

    /// Checks that an SQLite error carries primary and extended codes, name, message and SQL, and never the values.
    @Test func error_carriesCodesMessageAndSQLButNoValues() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE users(email TEXT UNIQUE)")
        try db.execute(sql: "INSERT INTO users VALUES (?)", arguments: [.text("ann@example.com")])
        let sql = "INSERT INTO users VALUES (?)"
        let error = try #require(databaseError { try db.execute(sql: sql, arguments: [.text("ann@example.com")]) })
        #expect(error.kind == .sqlite)
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(error.codeName == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(error.message == "UNIQUE constraint failed: users.email")
        #expect(error.sql == sql)
        #expect(error.description.contains("ann@example.com") == false)
        #expect(error.description.contains("SQLITE_CONSTRAINT_UNIQUE"))
    }

    /// Checks that a syntax error is a plain SQLITE_ERROR with SQLite's message.
    @Test func error_syntaxErrorIsSQLiteError() throws {
        let db = try makeMemoryDatabase()
        let error = try #require(databaseError { try db.execute(sql: "SELEC 1") })
        #expect(error.kind == .sqlite)
        #expect(error.extendedResultCode == .SQLITE_ERROR)
        #expect(error.message.contains("syntax error"))
    }
}
