import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM stops the daemon without losing a request.
@Suite struct GracefulStopTests {
    /// Twenty writes in flight when SIGTERM arrives all complete; new connections are refused meanwhile; the
    /// daemon exits 0 with the WAL checkpointed, and every acknowledged write is in the database afterwards.
    @Test func sigterm_completesInFlightRequestsRefusesNewOnesAndKeepsEveryWrite() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-stop")
        let database = directory.path("db.sqlite").path
        let notify = try NotifySocket(path: directory.path("notify").path)
        let daemon = try DaemonProcess(
            arguments: ["--database", database, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address, "SQLITED_SHUTDOWN_TIMEOUT_MS": "120000"],
            directory: directory.url
        )
        try notify.waitFor("READY=1")
        let url = try #require(try daemon.waitForListeners().first)
        let setup = try HTTPTestClient(baseURL: url)
        #expect(try setup.postJSON("/update", text: #"{"sql": "CREATE TABLE t(n INTEGER NOT NULL)"}"#).status == 200)

        // Each request is left half-sent: the server has answered `100 Continue` to its head (so it is parsing
        // that request) and holds part of its body when the signal arrives.
        var clients: [HTTPTestClient] = []
        var remainders: [[UInt8]] = []
        for index in 0..<20 {
            let client = try HTTPTestClient(baseURL: url, timeoutSeconds: 60)
            let body = Array(#"{"sql": "INSERT INTO t(n) VALUES (?)", "params": [\#(index)]}"#.utf8)
            try client.sendRaw(
                "POST /update HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n"
            )
            let interim = try client.readResponse(requestMethod: "POST", includeInterim: true)
            try #require(interim.status == 100)
            try client.sendRaw(body[..<10])
            clients.append(client)
            remainders.append(Array(body[10...]))
        }

        daemon.send(SIGTERM)
        try notify.waitFor("STOPPING=1")
        // The listener closes right after STOPPING=1: from then on a new connection is refused.
        let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
        var refused = false
        let deadline = Date().addingTimeInterval(30)
        while !refused && Date() < deadline {
            do {
                let probe = try TestSocket.connect(host: "127.0.0.1", port: port, timeoutSeconds: 5)
                probe.close()
                usleep(10_000)
            } catch TestSocket.SocketError.system(call: "connect", let code) where code == ECONNREFUSED {
                refused = true
            }
        }
        #expect(refused, "new connections must be refused once stopping")
        #expect(try daemon.exitStatus() == nil, "the daemon must wait for the requests in flight")

        for (client, remainder) in zip(clients, remainders) {
            try client.sendRaw(remainder)
            let response = try client.readResponse(requestMethod: "POST")
            #expect(response.status == 200, "\(response.bodyText)")
            #expect(try response.json()["changes"]?.int64Value == 1)
            #expect(response.header("Connection")?.lowercased() == "close")
        }
        #expect(try daemon.waitForExit() == .exited(0))
        let stderr = daemon.stderr
        #expect(stderr.contains("WAL checkpointed"))
        #expect(stderr.contains("sqlited stopped"))
        // checkpoint(TRUNCATE) leaves an empty WAL (or none once the last connection closed).
        let walSize = (try? FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0)

        // Every acknowledged write survived.
        let again = try DaemonProcess(
            arguments: ["--database", database, "--port", "0"],
            environment: [:],
            directory: directory.url
        )
        let againURL = try #require(try again.waitForListeners().first)
        let rows = try HTTPTestClient(baseURL: againURL).postJSON(
            "/query",
            text: #"{"sql": "SELECT n FROM t ORDER BY n", "shape": "arrays"}"#
        )
        let values = try #require(try rows.json()["rows"]?.arrayValue).compactMap { $0[0]?.int64Value }
        #expect(values == Array(0..<20))
        again.send(SIGTERM)
        #expect(try again.waitForExit() == .exited(0))
    }

    /// `/health` turns 503 while stopping (checked on a connection opened before the signal).
    @Test func sigterm_healthReportsUnavailableWhileStopping() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-stop")
        let notify = try NotifySocket(path: directory.path("notify").path)
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address, "SQLITED_SHUTDOWN_TIMEOUT_MS": "120000"],
            directory: directory.url
        )
        try notify.waitFor("READY=1")
        let url = try #require(try daemon.waitForListeners().first)
        let client = try HTTPTestClient(baseURL: url, timeoutSeconds: 60)
        // A request in progress (head answered with `100 Continue`, body not sent yet) is answered after the
        // signal, so it sees the stopping state.
        try client.sendRaw("GET /health HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        try #require(try client.readResponse(includeInterim: true).status == 100)
        daemon.send(SIGTERM)
        try notify.waitFor("STOPPING=1")
        try client.sendRaw("{}")
        let response = try client.readResponse()
        #expect(response.status == 503)
        #expect(try response.json()["status"]?.stringValue == "unavailable")
        #expect(try daemon.waitForExit() == .exited(0))
    }

    /// A parent that blocked SIGTERM, SIGINT and SIGHUP (Foundation's `Process` passes its mask on) does not make
    /// the daemon deaf to them: it unblocks the signals it handles, reloads on SIGHUP and stops on SIGTERM.
    @Test func inheritedBlockedSignals_areUnblocked() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-stop")
        let notify = try NotifySocket(path: directory.path("notify").path)
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address],
            directory: directory.url,
            blockedSignals: [SIGTERM, SIGINT, SIGHUP]
        )
        try notify.waitFor("READY=1")
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit(timeoutSeconds: 30) == .exited(0))
    }
}
