import Foundation
import SQLiteService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP reloads what can change live and reports the rest.
@Suite struct ReloadTests {
    /// A reload applies a new row limit and log level at once, reports a changed port as needing a restart (and
    /// keeps serving on the old one), and an invalid file afterwards changes nothing.
    @Test func sighup_appliesLiveChangesReportsRestartOnesAndRejectsInvalidFiles() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-reload")
        let file = directory.path("sqlited.yaml")
        let database = directory.path("db.sqlite").path
        func writeConfig(_ text: String) throws {
            try ("database:\n  path: \"\(database)\"\n" + text).write(to: file, atomically: true, encoding: .utf8)
        }
        try writeConfig("listen:\n  port: 0\nlimits:\n  max_rows: 100\nlog:\n  level: info\n")
        let (daemon, notify) = try DaemonProcess.startedReady(
            arguments: ["serve", "--config", file.path],
            in: directory
        )
        let url = try #require(try daemon.waitForListeners().first)
        let client = try HTTPTestClient(baseURL: url)
        #expect(try client.postJSON("/update", text: #"{"sql": "CREATE TABLE t(x)"}"#).status == 200)
        #expect(
            try client.postJSON("/update", text: #"{"sql": "INSERT INTO t VALUES (1), (2), (3), (4), (5)"}"#).status
                == 200
        )
        let query = #"{"sql": "SELECT x FROM t ORDER BY x"}"#
        #expect(try client.postJSON("/query", text: query).json()["rows"]?.arrayValue?.count == 5)

        try writeConfig("listen:\n  port: 1\nlimits:\n  max_rows: 2\nlog:\n  level: debug\n")
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        let limited = try client.postJSON("/query", text: query).json()
        #expect(limited["rows"]?.arrayValue?.count == 2)
        #expect(limited["truncated"]?.boolValue == true)
        let log = daemon.stderr
        #expect(log.contains("configuration changed key=limits.max_rows value=2"))
        #expect(log.contains("configuration changed key=log.level value=debug"))
        #expect(log.contains("configuration change needs a restart, not applied key=listen.port"))

        try writeConfig("listen:\n  port: 0\nlimits:\n  max_rows: 1\n  max_rowz: 3\n")
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        #expect(daemon.stderr.contains("reload failed, keeping the running configuration"))
        #expect(daemon.stderr.contains("key 'limits.max_rowz': unknown key"))
        #expect(try client.postJSON("/query", text: query).json()["rows"]?.arrayValue?.count == 2)

        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
    }

    /// Tokens are reloadable, and a reload logs their count, never a token or its hash.
    @Test func sighup_neverLogsTokens() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-reload")
        let file = directory.path("sqlited.yaml")
        let token = "reload-secret-0123456789abcdef"
        try "listen:\n  port: 0\n".write(to: file, atomically: true, encoding: .utf8)
        let (daemon, notify) = try DaemonProcess.startedReady(
            arguments: ["--config", file.path, "--database", directory.path("db.sqlite").path],
            in: directory
        )
        let hash = TokenStore.sha256Hex(of: token)
        try "listen:\n  port: 0\nauth:\n  tokens: [\"ci:write:\(hash)\"]\n".write(
            to: file,
            atomically: true,
            encoding: .utf8
        )
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        let log = daemon.stderr
        #expect(log.contains("configuration changed key=auth.tokens value=\"1 token(s)\""))
        #expect(!log.contains(token))
        #expect(!log.contains(hash))
    }
}
