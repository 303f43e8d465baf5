import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `sqlited` executable itself: `--help`, `--version`, and a clean exit on SIGTERM.
@Suite struct BinaryTests {
    /// Runs the binary with `arguments` to completion and returns its status and stdout.
    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = TestPaths.builtProduct(named: "sqlited")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `--help` exits 0 and lists the subcommands; `serve --help` describes the serving options.
    @Test func help_exitsZeroAndListsOptions() throws {
        let (status, output) = try run(["--help"])
        #expect(status == 0)
        for expected in ["USAGE:", "serve (default)", "check-config", "backup", "migrate", "--version"] {
            #expect(output.contains(expected), "\(expected) missing from:\n\(output)")
        }
        let (serveStatus, serveOutput) = try run(["serve", "--help"])
        #expect(serveStatus == 0)
        for expected in ["--database", "--host", "--port", "--config", "--readers", "--log-level"] {
            #expect(serveOutput.contains(expected), "\(expected) missing from:\n\(serveOutput)")
        }
    }

    /// `--version` exits 0 and prints the product and SQLite versions.
    @Test func version_exitsZeroAndPrintsVersions() throws {
        let (status, output) = try run(["--version"])
        #expect(status == 0)
        #expect(output.hasPrefix("sqlited "), "\(output)")
        #expect(output.contains("SQLite 3."), "\(output)")
    }

    /// SIGTERM stops a serving process with exit status 0, and what it acknowledged is durable on restart.
    @Test func sigterm_exitsZeroAndKeepsData() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-e2eapi-bin")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        let client = try server.makeClient()
        try client.update("CREATE TABLE kept(x)")
        try client.update("INSERT INTO kept VALUES (1)")
        #expect(try server.stop(signal: SIGTERM) == .exited(0))

        let restarted = try ServerProcess.startSqlited(directory: directory.url)
        #expect(try restarted.makeClient().scalarInt("SELECT count(*) FROM kept") == 1)
        let status = try restarted.stop(signal: SIGTERM)
        #expect(status == .exited(0), "\(status); stderr: \(restarted.stderrLines)")
    }

    /// SIGTERM sent as soon as the listening line appears still stops the process cleanly (the signal handlers are
    /// in place before the line is printed).
    @Test func sigterm_rightAfterListeningLineExitsZero() throws {
        for _ in 0..<3 {
            let directory = try TemporaryDirectory(prefix: "sqlited-e2eapi-bin")
            let server = try ServerProcess.startSqlited(directory: directory.url)
            let status = try server.stop(signal: SIGTERM)
            #expect(status == .exited(0), "\(status); stderr: \(server.stderrLines)")
        }
    }
}
