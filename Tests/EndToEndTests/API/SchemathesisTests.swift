import Foundation
import Testing

/// The whole API fuzzed from its own OpenAPI document by a fuzzer nobody here wrote: PyPI's `schemathesis`
/// (`.ci/run` installs it; in CI the test requires it) against the real binary, every operation, a bounded number of
/// examples each with a fixed seed, and its checks that no answer is a 5xx, that every status, content type,
/// header and body is the one the document gives.
@Suite(.enabled(if: Schemathesis.available, "schemathesis (PyPI) is not installed"))
struct SchemathesisTests {
    static let checks = [
        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance",
        "response_headers_conformance",
    ]

    @Test func everyOperation_answersAsDocumented_andNeverWith5xx() throws {
        let schemathesis = try #require(Schemathesis.tool, "schemathesis is required (.ci/run installs it)")
        let directory = try TemporaryDirectory(prefix: "sqlited-schemathesis")
        // The fuzzer opens interactive transactions one after another and leaves them open: each holds the writer
        // (or a reader) until it expires, and the next open waits for it. Expiring them after 100 ms keeps every
        // wait far below the busy timeout, so no open meets a documented 503 (SQLITE_BUSY, TOO_MANY_TRANSACTIONS)
        // that `not_a_server_error` would count as a failure.
        let server = try ServerProcess.startSqlited(
            directory: directory,
            environment: [
                "SQLITED_LIMITS_TRANSACTION_IDLE_TIMEOUT_MS": "100", "SQLITED_DATABASE_READERS": "16",
                "SQLITED_LIMITS_MAX_READ_TRANSACTIONS": "16",
            ]
        )
        defer { _ = server.kill() }
        // A table for the Tables operations to find, beside the 404s for the names the fuzzer makes up.
        let client = try server.makeClient()
        try client.ok("/update", #"{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, v)"}"#)
        try client.ok("/update", #"{"sql": "INSERT INTO t(v) VALUES (1), ('a'), (NULL)"}"#)
        let result = try schemathesis.run(
            [
                "run", server.baseURL + "/openapi.json", "--checks", Self.checks.joined(separator: ","),
                "--max-examples", "20", "--workers", "1", "--seed", "20261127", "--no-color",
            ],
            timeoutSeconds: 600
        )
        #expect(result.status == 0, "\(result.stdout.suffix(6000))\n\(result.stderr.suffix(2000))")
        #expect(server.isRunning, "the server must survive the fuzzing")
        #expect(result.stdout.contains("passed"), "\(result.stdout.suffix(2000))")
    }
}

/// PyPI's `schemathesis`, when installed: run as `python3 -m schemathesis.cli` (its console script may not be on
/// `PATH` until pyenv rehashes its shims).
enum Schemathesis {
    struct Tool {
        let python: ExternalTool

        func run(_ arguments: [String], timeoutSeconds: Double) throws -> ExternalTool.Result {
            try python.run(["-m", "schemathesis.cli"] + arguments, timeoutSeconds: timeoutSeconds)
        }
    }

    static let tool: Tool? = {
        guard let python = ExternalTool("python3"),
            let probe = try? python.run(["-m", "schemathesis.cli", "--version"]), probe.status == 0
        else { return nil }
        return Tool(python: python)
    }()

    /// In CI the suite runs whatever: a missing fuzzer is then a failure, not a skip.
    static var available: Bool { tool != nil || ProcessInfo.processInfo.environment["CI"] != nil }
}
