// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The daemon's request path (HTTPServer, SQLiteService): `strictSettings`, and no run-time exclusivity checks in
/// release builds. Each access to a class's stored property or a global the optimizer cannot prove safe costs a
/// check through thread-local storage (4% of a `/query`'s instructions, 9% of an HTTP/2 request's, in callgrind);
/// debug builds — every test run — keep the checks, so a violation still fails the tests. SQLiteEngine, the library
/// meant for other programs, keeps them (and stays free of unsafe flags, which SwiftPM refuses in dependencies).
let hotPathSettings: [SwiftSetting] =
    strictSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "sqlited",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SQLiteEngine", targets: ["SQLiteEngine"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "SQLiteService", targets: ["SQLiteService"]),
        .executable(name: "sqlited", targets: ["sqlited"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // Layered configuration (flags > environment > file > defaults) with its YAML file provider.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.0.0", traits: ["YAML"]),
        // YAML parser under swift-configuration's file provider; used directly to list a file's keys (unknown-key check).
        .package(url: "https://github.com/jpsim/Yams", "5.4.0"..<"7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
    ],
    targets: [
        // libsqlite3 from the system (Debian: libsqlite3-dev), plus a shim for its variadic and macro-only API.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libnghttp2 from the system (Debian: libnghttp2-dev): the HTTP/2 (h2c) framing layer (issue #14).
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        // libdqlite from the system (Debian: libdqlite-dev 1.11.1): the Raft-replicated SQLite node (issue #15).
        // pkg-config gives `-ldqlite`; the linker takes the shared libdqlite.so, whose own NEEDED entries bring
        // libraft, libuv and libsqlite3 (Debian ships no libraft.so/libuv.so link names without their -dev packages).
        .systemLibrary(
            name: "CDqlite",
            pkgConfig: "dqlite",
            providers: [.apt(["libdqlite-dev"])]
        ),
        .target(
            name: "SQLiteEngine",
            dependencies: ["CSQLite"],
            swiftSettings: strictSettings
        ),
        // Linux epoll, which the Glibc module does not export (and whose event struct is packed on x86-64).
        .target(name: "CEventPoll"),
        // One value per thread (`PerThread`), for the per-request caches of HTTPServer, SQLiteService and sqlited.
        .target(
            name: "ThreadStorage",
            swiftSettings: hotPathSettings
        ),
        .target(
            name: "HTTPServer",
            dependencies: ["CEventPoll", "CNGHTTP2", "ThreadStorage", .product(name: "Logging", package: "swift-log")],
            swiftSettings: hotPathSettings
        ),
        .target(
            name: "SQLiteService",
            dependencies: [
                "SQLiteEngine",
                "HTTPServer",
                "ThreadStorage",
                // The cluster backend (issue #15): statements through the dqlite leader.
                "DqliteClient",
                "DqliteCluster",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The console's files, embedded by scripts/embed-console-assets.py (ConsoleAsset+Files.swift).
            exclude: ["Console/Assets"],
            swiftSettings: hotPathSettings
        ),
        .executableTarget(
            name: "sqlited",
            dependencies: [
                "SQLiteService",
                "SQLiteEngine",
                "HTTPServer",
                "ThreadStorage",
                "DqliteCluster",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        // One dqlite node embedded in the process: create, bind, start, stop (issue #15).
        .target(
            name: "DqliteNode",
            dependencies: ["CDqlite"],
            swiftSettings: strictSettings
        ),
        // The dqlite wire protocol (version 1): a pure codec and a blocking connection over TCP; no C library.
        .target(
            name: "DqliteClient",
            swiftSettings: strictSettings
        ),
        // Cluster membership (join, leave) and a leader-following client with the retry rules (issue #15).
        .target(
            name: "DqliteCluster",
            dependencies: ["DqliteNode", "DqliteClient"],
            swiftSettings: strictSettings
        ),
        // Benchmark only: the HTTP server answering a fixed response (scripts/bench-http.sh).
        .executableTarget(
            name: "sqlited-http-bench",
            dependencies: ["HTTPServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SQLiteEngineTests",
            dependencies: ["SQLiteEngine", "CSQLite"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "CNGHTTP2", "ThreadStorage", "LoopbackTestSupport"],
            resources: [.copy("Regressions"), .copy("HTTP2Regressions")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SQLiteServiceTests",
            dependencies: ["SQLiteService", "SQLiteEngine", "HTTPServer", "DqliteCluster", "LoopbackTestSupport"],
            // Replayed from the source tree by JSONRequestRegressionTests.
            exclude: ["Security/Regressions"],
            swiftSettings: strictSettings
        ),
        // Loopback sockets, temporary directories and a seeded generator for the test targets (a library, as test
        // targets cannot depend on each other).
        .target(
            name: "LoopbackTestSupport",
            path: "Tests/LoopbackTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DqliteClientTests",
            dependencies: ["DqliteClient", "LoopbackTestSupport"],
            swiftSettings: strictSettings
        ),
        // Real dqlite nodes in the test process, driven through DqliteClient; CSQLite opens the files DUMP returns.
        .testTarget(
            name: "DqliteNodeTests",
            dependencies: ["DqliteNode", "DqliteClient", "CSQLite", "LoopbackTestSupport"],
            swiftSettings: strictSettings
        ),
        // Real dqlite nodes in the test process, formed into a cluster and driven through DqliteCluster; plus a
        // scripted fake server for the retry rules. SQLiteService for the SQL policy on the leader's connections and
        // an in-process service over a real node (HTTPServer's request and response, swift-log's Logger).
        .testTarget(
            name: "DqliteClusterTests",
            dependencies: [
                "DqliteCluster", "DqliteNode", "DqliteClient", "LoopbackTestSupport", "SQLiteService", "SQLiteEngine",
                "HTTPServer", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            // LoopbackTestSupport: free ports for the cluster nodes' Raft addresses. DqliteClient: the failover test
            // hands leadership to each node in turn (TRANSFER) to read that node's own copy of the database.
            dependencies: ["sqlited", "LoopbackTestSupport", "DqliteClient"],
            // Run from the source tree with the system's python3: by HTTP2FrameTests and the streaming tests (PyPI's
            // h2), and by ConsoleBrowserTests (PyPI's selenium).
            exclude: ["HTTP2/h2_scenarios.py", "Streaming/stream_scenarios.py", "Console/console_browser.py"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
