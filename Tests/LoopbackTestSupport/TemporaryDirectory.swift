import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "sqlited-dqlite-tests") throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
