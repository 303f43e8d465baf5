import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon writes to stderr (journald).
@Suite struct DaemonLoggingTests {
    /// `listen.event_loops` sets how many event loops serve the connections (the summary says how many run), and
    /// a server on one loop answers many connections at once.
    @Test func eventLoops_setByConfigurationAndServing() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-loops")
        let database = directory.path("db.sqlite").path
        let daemon = try DaemonProcess(
            arguments: ["--database", database, "--port", "0"],
            environment: ["SQLITED_LISTEN_EVENT_LOOPS": "1"],
            directory: directory.url
        )
        let url = try #require(try daemon.waitForListeners().first)
        let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let client = HTTPTestClient(host: "127.0.0.1", port: port)
            for _ in 0..<5 {
                let answer = try? client.postJSON("/query", text: #"{"sql": "SELECT ? AS n", "params": [\#(index)]}"#)
                if (try? answer?.json()["rows"]?.arrayValue?.first?["n"]?.int64Value) != Int64(index) {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        let summary = try #require(daemon.stderr.split(separator: "\n").first { $0.contains("sqlited started") })
        #expect(summary.contains("event_loops=1"), "\(summary)")
    }

    /// The startup summary names the version, database, listeners and limits.
    @Test func startupSummary_namesVersionDatabaseListenersAndLimits() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-log")
        let database = directory.path("db.sqlite").path
        let socket = directory.path("s.sock").path
        let daemon = try DaemonProcess(
            arguments: ["--database", database, "--port", "0", "--unix-socket", socket],
            environment: [:],
            directory: directory.url
        )
        let urls = try daemon.waitForListeners(count: 2)
        #expect(urls.contains("unix:\(socket)"))
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        let summary = try #require(daemon.stderr.split(separator: "\n").first { $0.contains("sqlited started") })
        #expect(summary.hasPrefix("info sqlited: sqlited started"))
        for field in [
            "version=0.1.0", "database=\(database)", "unix:\(socket)", "limits=", "body=10485760", "sqlite=3.",
            "event_loops=",
        ] {
            #expect(summary.contains(field), "\(field) missing in: \(summary)")
        }
    }

    /// With `log.format: json` every log line is one JSON object with time, level, label and message.
    @Test func jsonFormat_writesOneObjectPerLine() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-log")
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["SQLITED_LOG_FORMAT": "json"],
            directory: directory.url
        )
        _ = try daemon.waitForListeners()
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        let lines = daemon.stderr.split(separator: "\n").filter { !$0.hasPrefix(ServerProcess.listeningPrefix) }
        #expect(lines.count >= 3)
        var messages: [String] = []
        for line in lines {
            let object = try JSONValue(parsing: Array(line.utf8))
            #expect(object["time"]?.stringValue?.isEmpty == false)
            #expect(object["level"]?.stringValue != nil)
            #expect(object["label"]?.stringValue == "sqlited")
            messages.append(try #require(object["message"]?.stringValue))
        }
        #expect(messages.contains("sqlited started"))
        #expect(messages.contains("sqlited stopped"))
    }

    /// `--log-level warning` leaves the info lines out.
    @Test func logLevel_filtersLowerLevels() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-log")
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0", "--log-level", "warning"],
            environment: [:],
            directory: directory.url
        )
        _ = try daemon.waitForListeners()
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        #expect(!daemon.stderr.contains("info sqlited"))
        #expect(daemon.stderr.contains(ServerProcess.listeningPrefix))
    }
}
