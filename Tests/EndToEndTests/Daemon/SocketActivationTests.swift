import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Socket activation: descriptors passed with `LISTEN_FDS` are served instead of the configured address.
@Suite struct SocketActivationTests {
    /// A listening socket created by the test and passed as descriptor 3 with `LISTEN_FDS=1` is the one served.
    @Test func socketActivation_servesInheritedListeningSocket() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-activation")
        let listener = try TestSocket.listen(host: "127.0.0.1")
        let port = try listener.localPort
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["LISTEN_FDS": "1", "LISTEN_FDNAMES": "http"],
            directory: directory.url,
            passingListener: listener.descriptor
        )
        let urls = try daemon.waitForListeners()
        #expect(urls == ["http://127.0.0.1:\(port)"])
        // The daemon owns the socket now; the test's copy must not accept anything.
        listener.close()

        let client = HTTPTestClient(host: "127.0.0.1", port: port)
        let created = try client.postJSON("/update", text: #"{"sql": "CREATE TABLE t(x)"}"#)
        #expect(created.status == 200)
        let health = try client.get("/health")
        #expect(health.status == 200)
        #expect(try health.json()["status"]?.stringValue == "ok")
        #expect(daemon.stderr.contains("using sockets passed by systemd names=http"))

        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
    }

    /// Variables meant for another process (`LISTEN_PID` not ours) are ignored: the configured address is bound.
    @Test func socketActivation_ignoresDescriptorsForAnotherProcess() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-activation")
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"],
            directory: directory.url
        )
        let url = try #require(try daemon.waitForListeners().first)
        #expect(try HTTPTestClient(baseURL: url).get("/health").status == 200)
        #expect(!daemon.stderr.contains("using sockets passed by systemd"))
        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
    }
}
