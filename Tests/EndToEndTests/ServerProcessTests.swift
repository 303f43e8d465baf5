import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ServerProcessTests {
    private let shell = URL(fileURLWithPath: "/bin/sh")

    /// The listening line on stderr gives the base URL; SIGTERM ends the process and its status is reported.
    @Test func start_parsesListeningLineAndStopReportsSignal() throws {
        let server = try ServerProcess(
            executableURL: shell,
            arguments: [
                "-c", "echo 'starting' >&2; echo 'sqlited: listening on http://127.0.0.1:41234' >&2; exec sleep 60",
            ]
        )
        #expect(server.listeningURLs == ["http://127.0.0.1:41234"])
        #expect(server.baseURL == "http://127.0.0.1:41234")
        #expect(server.stderrLines.first == "starting")
        #expect(server.isRunning)
        let status = try server.stop(signal: SIGTERM)
        #expect(status == .signaled(SIGTERM))
        #expect(!server.isRunning)
    }

    /// With several listeners, start waits for all of them, in announcement order.
    @Test func start_waitsForEveryListener() throws {
        let script = """
            echo 'sqlited: listening on http://127.0.0.1:1111' >&2
            sleep 0.2
            echo 'sqlited: listening on http://[::1]:2222' >&2
            exec sleep 60
            """
        let server = try ServerProcess(executableURL: shell, arguments: ["-c", script], listenerCount: 2)
        #expect(server.listeningURLs == ["http://127.0.0.1:1111", "http://[::1]:2222"])
        server.kill()
    }

    /// A process that exits before announcing a listener is reported with its exit status and stderr.
    @Test func start_reportsEarlyExitWithStatusAndStderr() throws {
        do {
            _ = try ServerProcess(
                executableURL: shell,
                arguments: ["-c", "echo 'usage' ; echo 'sqlited: bad flag' >&2; exit 3"]
            )
            Issue.record("start succeeded")
        } catch ServerProcess.ServerProcessError.exitedBeforeListening(let status, let stderr, let stdout) {
            #expect(status == .exited(3))
            #expect(stderr == ["sqlited: bad flag"])
            #expect(stdout == ["usage"])
        }
    }

    /// A process that never announces a listener is killed when the startup time runs out.
    @Test func start_timesOutAndKillsSilentProcess() throws {
        let directory = try TemporaryDirectory()
        let pidFile = directory.path("pid")
        do {
            _ = try ServerProcess(
                executableURL: shell,
                arguments: ["-c", "echo $$ > '\(pidFile.path)'; echo 'not a listening line' >&2; exec sleep 60"],
                startupTimeoutSeconds: 0.5
            )
            Issue.record("start succeeded")
        } catch ServerProcess.ServerProcessError.startupTimedOut(_, let stderr) {
            #expect(stderr == ["not a listening line"])
        }
        let pid = try #require(
            Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        )
        // kill(pid, 0) fails with ESRCH once the process is gone (it was reaped by the timeout path).
        #expect(kill(pid, 0) == -1)
    }

    /// A process that ignores SIGTERM makes stop throw; kill() then ends it with SIGKILL.
    @Test func stop_throwsWhenSignalIgnoredAndKillEndsProcess() throws {
        let server = try ServerProcess(
            executableURL: shell,
            arguments: ["-c", "trap '' TERM; echo 'sqlited: listening on http://127.0.0.1:1' >&2; exec sleep 60"]
        )
        #expect(throws: ServerProcess.ServerProcessError.self) {
            try server.stop(signal: SIGTERM, timeoutSeconds: 0.3)
        }
        #expect(server.isRunning)
        #expect(server.kill() == .signaled(SIGKILL))
        #expect(!server.isRunning)
    }

    /// A graceful shutdown on SIGTERM reports the exit status, and output written on the way out is captured.
    @Test func stop_reportsExitStatusAndFinalOutput() throws {
        let script = """
            trap 'echo "sqlited: shutting down" >&2; exit 0' TERM
            echo 'ready'
            echo 'sqlited: listening on http://127.0.0.1:1' >&2
            while :; do sleep 0.05; done
            """
        let server = try ServerProcess(executableURL: shell, arguments: ["-c", script])
        #expect(try server.stop() == .exited(0))
        server.waitForOutputToEnd()
        #expect(server.stderrLines.contains("sqlited: shutting down"))
        #expect(server.stdoutLines == ["ready"])
    }

    /// A missing executable is reported before anything starts.
    @Test func start_reportsMissingExecutable() throws {
        #expect(throws: ServerProcess.ServerProcessError.self) {
            try ServerProcess(executableURL: URL(fileURLWithPath: "/nonexistent/sqlited"), arguments: [])
        }
    }

    /// The built `sqlited` executable is found beside the test binary (SwiftPM builds it for this test target).
    @Test func builtProduct_findsSqlitedBesideTestBinary() {
        let url = TestPaths.builtProduct(named: "sqlited")
        #expect(FileManager.default.isExecutableFile(atPath: url.path), "looked in \(url.path)")
    }
}
