import Testing

@testable import SQLiteEngine

/// Checks that the engine links the system libsqlite3.
@Test func libraryVersion_isThree() {
    #expect(sqliteLibraryVersion.hasPrefix("3."))
}
