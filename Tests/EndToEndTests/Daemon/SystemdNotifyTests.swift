import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify protocol as systemd sees it, through a fake `NOTIFY_SOCKET`.
@Suite struct SystemdNotifyTests {
    /// READY=1 comes when the listener already answers; then WATCHDOG=1 pings, RELOADING=1 and READY=1 around a
    /// SIGHUP, STOPPING=1 on SIGTERM, in that order, and the daemon exits 0.
    @Test func notify_sendsReadyWatchdogReloadingStoppingInOrder() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-notify")
        let notify = try NotifySocket(path: directory.path("notify").path)
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "200000"],
            directory: directory.url
        )

        let beforeReady = try notify.waitFor("READY=1")
        #expect(beforeReady.count == 1, "READY=1 must be the first message: \(beforeReady)")
        // Ready means serving: the announced listener answers /health with 200 at once.
        let url = try #require(try daemon.waitForListeners(timeoutSeconds: 5).first)
        let health = try HTTPTestClient(baseURL: url).get("/health")
        #expect(health.status == 200)

        try notify.waitFor("WATCHDOG=1")
        daemon.send(SIGHUP)
        let untilReloading = try notify.waitFor("RELOADING=1")
        #expect(untilReloading.allSatisfy { $0 == "WATCHDOG=1" || $0.hasPrefix("RELOADING=1") })
        let reloading = try #require(untilReloading.last)
        #expect(NotifySocket.assignments(reloading).contains { $0.hasPrefix("MONOTONIC_USEC=") })
        let untilReady = try notify.waitFor("READY=1")
        #expect(untilReady.dropLast().allSatisfy { $0 == "WATCHDOG=1" })

        daemon.send(SIGTERM)
        let untilStopping = try notify.waitFor("STOPPING=1")
        #expect(untilStopping.dropLast().allSatisfy { $0 == "WATCHDOG=1" })
        #expect(try daemon.waitForExit() == .exited(0))

        let states = notify.messages.filter { $0 != "WATCHDOG=1" }.map { NotifySocket.assignments($0)[0] }
        #expect(states == ["READY=1", "RELOADING=1", "READY=1", "STOPPING=1"])
    }

    /// An abstract socket name (`@name`, as systemd uses) receives the notifications too.
    @Test func notify_reachesAbstractSocket() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-notify")
        let notify = try NotifySocket(path: "sqlited-test-\(UUID().uuidString)", abstract: true)
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address],
            directory: directory.url
        )
        try notify.waitFor("READY=1")
        daemon.send(SIGTERM)
        try notify.waitFor("STOPPING=1")
        #expect(try daemon.waitForExit() == .exited(0))
    }

    /// A start that fails (a directory where the database file should be) never sends READY=1 and exits non-zero.
    @Test func notify_failedStartSendsNoReady() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-notify")
        let notify = try NotifySocket(path: directory.path("notify").path)
        try FileManager.default.createDirectory(at: directory.path("db.sqlite"), withIntermediateDirectories: true)
        let daemon = try DaemonProcess(
            arguments: ["--database", directory.path("db.sqlite").path, "--port", "0"],
            environment: ["NOTIFY_SOCKET": notify.address],
            directory: directory.url
        )
        let status = try daemon.waitForExit()
        #expect(status != .exited(0))
        while notify.receive(timeoutSeconds: 0.2) != nil {}
        #expect(!notify.messages.contains { NotifySocket.assignments($0).contains("READY=1") })
        #expect(daemon.stderr.contains("cannot start"))
    }
}
