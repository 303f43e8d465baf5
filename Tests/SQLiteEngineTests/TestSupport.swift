import Foundation
import Testing

@testable import SQLiteEngine

/// A fresh directory under the system temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlited-engine-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of a file inside the directory (not created).
    func path(_ name: String = "test.sqlite") -> String {
        url.appendingPathComponent(name).path
    }
}

/// An in-memory database for tests that need no file.
func makeMemoryDatabase(_ configuration: Configuration = .init()) throws -> Database {
    try Database(path: ":memory:", configuration: configuration)
}

/// The error `body` throws, as a DatabaseError (the test fails when it throws nothing or something else).
func databaseError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> DatabaseError? {
    do {
        try body()
        Issue.record("expected a DatabaseError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as DatabaseError {
        return error
    } catch {
        Issue.record("expected a DatabaseError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
