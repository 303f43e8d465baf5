import Foundation

/// Where things are when the tests run: the package root, the shared conformance corpora beside it, and the
/// directory holding the built products (`sqlited`).
enum TestPaths {
    /// The package root, found from this file's path (`<root>/Tests/EndToEndTests/Support/TestPaths.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // EndToEndTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `../shared/conformance` relative to the package root (never copied into the repository).
    static let conformanceDirectory: URL =
        packageRoot
        .deletingLastPathComponent()
        .appendingPathComponent("shared")
        .appendingPathComponent("conformance")

    /// The sqllogictest corpus folder inside ``conformanceDirectory``.
    static let sqlLogicTestDirectory: URL = conformanceDirectory.appendingPathComponent("sqllogictest")

    /// True when the sqllogictest corpus is present (tests that need it are disabled otherwise).
    static var hasSQLLogicTestCorpus: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: sqlLogicTestDirectory.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// Every `.test` file of the sqllogictest corpus, sorted by relative path; empty when the corpus is absent.
    static var sqlLogicTestFiles: [URL] {
        guard hasSQLLogicTestCorpus,
            let enumerator = FileManager.default.enumerator(
                at: sqlLogicTestDirectory,
                includingPropertiesForKeys: nil
            )
        else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "test" {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// A corpus file's path relative to the corpus folder (`evidence/in1.test`), for test names and messages.
    static func relativeName(of file: URL) -> String {
        let base = sqlLogicTestDirectory.standardizedFileURL.path + "/"
        let path = file.standardizedFileURL.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : file.lastPathComponent
    }

    /// The directory of the running test binary, which is where SwiftPM puts the package's executables.
    ///
    /// On Linux `swift test` runs `<build dir>/<package>PackageTests.xctest` (an executable), so `/proc/self/exe`
    /// names it; on macOS the bundle sits in the same build directory, two levels above its executable.
    static var productsDirectory: URL {
        #if os(Linux)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent()
        #else
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #endif
    }

    /// A built executable of this package, e.g. `sqlited`.
    static func builtProduct(named name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }
}
