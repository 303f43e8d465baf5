import Foundation
import Testing

/// The HTTP/2 clients the tests use, nobody here wrote them: Debian's curl (linked with libnghttp2) and Python's
/// `h2` from PyPI. `.ci/run` installs both; on a developer's machine without them the suites are skipped with a
/// message, in CI (`CI` set) they run and fail.
enum HTTP2Tools {
    static let curl: ExternalTool? = {
        guard let curl = ExternalTool("curl"),
            let version = try? curl.run(["--version"]), version.stdout.contains("HTTP2")
        else { return nil }
        return curl
    }()

    static let python: ExternalTool? = {
        guard let python = ExternalTool("python3"),
            let probe = try? python.run(["-c", "import h2, hpack"]), probe.status == 0
        else { return nil }
        return python
    }()

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    static var curlAvailable: Bool { curl != nil || inCI }
    static var pythonAvailable: Bool { python != nil || inCI }

    static let scenarioScript = TestPaths.packageRoot.appendingPathComponent(
        "Tests/EndToEndTests/HTTP2/h2_scenarios.py"
    )

    /// Runs a scenario of `h2_scenarios.py` against `port` and returns what the client saw.
    static func scenario(_ name: String, port: Int, argument: String? = nil) throws -> [String: Any] {
        let python = try #require(python, "python3 with PyPI's h2 is required (.ci/run installs it)")
        let result = try python.run(
            [scenarioScript.path, name, String(port)] + (argument.map { [$0] } ?? []),
            timeoutSeconds: 60
        )
        try #require(result.status == 0, "h2_scenarios.py \(name) failed: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(result.stdout)")
    }
}

extension ServerProcess {
    /// The port of the first (TCP) listener.
    var port: Int {
        Int(baseURL.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? "") ?? 0
    }

    /// `sqlited` on a loopback port with `SQLITED_*` settings from `environment` added to this process's.
    static func startSqlited(directory: TemporaryDirectory, environment: [String: String]) throws -> ServerProcess {
        try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--database", directory.path("db.sqlite").path, "--host", "127.0.0.1", "--port", "0",
            ],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }
        )
    }
}
