import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
///
/// Each test makes its own, so parallel tests never share database files.
final class TemporaryDirectory {
    let url: URL

    init(prefix: String = "sqlited-e2e") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the directory.
    func path(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}
