import Foundation
import Testing

/// Runs every sqllogictest file of `../shared/conformance/sqllogictest` through the real `sqlited` binary
/// (one fresh server and database per file) and expects no failures.
///
/// GATED: until `sqlited` serves `POST /batch` and `POST /query` (and accepts `--database PATH --host 127.0.0.1
/// --port 0`, printing `sqlited: listening on http://HOST:PORT` to stderr), this suite cannot pass, so it only runs
/// when ``SQLitedConformanceGate/isEnabled`` is true: set the environment variable `SQLITED_CONFORMANCE=1`, or
/// flip ``SQLitedConformanceGate/enabledByDefault`` to `true` once the server is complete. It is also disabled, with
/// a message, when the corpus folder is absent.
@Suite(
    .enabled(if: TestPaths.hasSQLLogicTestCorpus, "the sqllogictest corpus (../shared/conformance) is absent"),
    .enabled(
        if: SQLitedConformanceGate.isEnabled,
        "gated until sqlited serves /batch and /query: set SQLITED_CONFORMANCE=1 or flip enabledByDefault"
    )
)
struct SQLLogicTestConformanceTests {
    /// One corpus file through sqlited's HTTP API: every statement and query behaves as the corpus expects
    /// (records refused by the SQL policy, and records depending on them, are counted as skipped).
    @Test(arguments: TestPaths.sqlLogicTestFiles)
    func sqlited_passesCorpusFile(file: URL) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess.startSqlited(directory: directory.url)
        let name = TestPaths.relativeName(of: file)
        let runner = SLTRunner(client: try server.makeClient())
        let report = try runner.run(fileAt: file, displayName: name)
        let status = try server.stop(signal: SIGTERM)
        #expect(report.failed == 0, "\(name): \(report)")
        #expect(report.passed > 0, "\(name): \(report)")
        let stderrTail = server.stderrLines.suffix(20).joined(separator: "\n")
        #expect(status == .exited(0), "sqlited did not shut down cleanly on SIGTERM: \(status)\n\(stderrTail)")
    }
}

/// The switch for ``SQLLogicTestConformanceTests`` (a separate type: a suite's traits cannot refer to the suite).
enum SQLitedConformanceGate {
    /// Flip to `true` when sqlited implements the API (the lead engineer's switch).
    static let enabledByDefault = false

    static var isEnabled: Bool {
        enabledByDefault || ProcessInfo.processInfo.environment["SQLITED_CONFORMANCE"] == "1"
    }
}
