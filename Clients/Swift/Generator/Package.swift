// swift-tools-version: 6.0
// The code generator only: `make client` runs its `swift-openapi-generator` to regenerate
// Clients/Swift/Sources/SQLitedClient/Generated from the server's document. Kept apart so that
// neither the server's build nor the client's users build the generator.
import PackageDescription

let package = Package(
    name: "SQLitedClientGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ]
)
