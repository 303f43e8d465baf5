// swift-tools-version:6.0
import Foundation
import PackageDescription

// A path dependency is identified by its directory name, which differs between checkouts.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "JSONRequestFuzz",
    dependencies: [.package(path: "../..")],
    targets: [
        // Built by scripts/fuzz-json.sh with -sanitize=fuzzer,address -parse-as-library; libFuzzer provides main.
        .executableTarget(
            name: "JSONRequestFuzz",
            dependencies: [.product(name: "SQLiteService", package: rootPackage)]
        )
    ],
    swiftLanguageModes: [.v6]
)
