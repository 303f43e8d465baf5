// swift-tools-version:6.0
import Foundation
import PackageDescription

// A path dependency is identified by its directory name, which differs between checkouts.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "HTTP2Fuzz",
    dependencies: [.package(path: "../..")],
    targets: [
        // Built by scripts/fuzz.sh h2 with -sanitize=fuzzer,address -parse-as-library; libFuzzer provides main.
        .executableTarget(
            name: "HTTP2Fuzz",
            dependencies: [.product(name: "HTTPServer", package: rootPackage)]
        )
    ],
    swiftLanguageModes: [.v6]
)
