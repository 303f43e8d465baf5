// swift-tools-version: 6.0
// An example service on the Swift client (Clients/Swift): a small todo backend whose data lives in sqlited.
// `make client-test` runs its tests against the real server.
import PackageDescription

let package = Package(
    name: "Todo",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../Clients/Swift"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The service's logic: its schema and its operations, on SQLitedClient.
        .target(name: "TodoService", dependencies: [.product(name: "SQLitedClient", package: "Swift")]),
        // `todo`: the service's command line.
        .executableTarget(
            name: "todo",
            dependencies: ["TodoService", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "TodoServiceTests",
            dependencies: ["TodoService", .product(name: "SQLitedTestSupport", package: "Swift")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
