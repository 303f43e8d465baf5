// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that GRDB (a comparison peer only)
// never becomes a dependency of the product.
let package = Package(
    name: "sqlited-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "sqlited", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteRaw", path: "Sources/CSQLiteRaw", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "EngineBench",
            dependencies: [
                "CSQLiteRaw",
                .product(name: "SQLiteEngine", package: "sqlited"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
