import Testing

@testable import sqlited

/// The daemon's pure decisions, without a process: socket activation variables, the watchdog interval and the
/// reload plan.
@Suite struct DaemonUnitTests {
    /// `LISTEN_FDS` descriptors start at 3 and take their names from `LISTEN_FDNAMES`.
    @Test func socketActivation_readsDescriptorsAndNames() throws {
        let activation = try SocketActivation(
            environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "http:local"],
            pid: 42
        )
        #expect(activation.sockets == [.init(fd: 3, name: "http"), .init(fd: 4, name: "local")])
    }

    /// Another process's variables, or none, mean no inherited sockets; a malformed count is an error.
    @Test func socketActivation_ignoresOtherProcessesAndRejectsGarbage() throws {
        #expect(try SocketActivation(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "1"], pid: 42).sockets.isEmpty)
        #expect(try SocketActivation(environment: [:], pid: 42).sockets.isEmpty)
        #expect(throws: ConfigurationError.self) {
            try SocketActivation(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "many"], pid: 42)
        }
        let unnamed = try SocketActivation(
            environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "one"],
            pid: 42
        )
        #expect(unnamed.sockets.map(\.name) == ["unknown", "unknown"])
    }

    /// The watchdog runs for `WATCHDOG_USEC` unless `WATCHDOG_PID` names another process.
    @Test func watchdog_honoursWatchdogPID() {
        #expect(Watchdog.interval(environment: ["WATCHDOG_USEC": "30000000"], pid: 5) == .seconds(30))
        #expect(
            Watchdog.interval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "5"], pid: 5) == .seconds(30)
        )
        #expect(Watchdog.interval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "6"], pid: 5) == nil)
        #expect(Watchdog.interval(environment: ["WATCHDOG_USEC": "0"], pid: 5) == nil)
        #expect(Watchdog.interval(environment: [:], pid: 5) == nil)
    }

    /// NOTIFY_SOCKET must be an absolute path or an abstract name.
    @Test func notifier_acceptsPathsAndAbstractNamesOnly() {
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"]).isEnabled)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@abstract"]).isEnabled)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative"]).isEnabled)
        #expect(!SystemdNotifier(environment: [:]).isEnabled)
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
    }

    /// A reload applies live keys, lists restart-only keys without applying them, and leaves SQLite connection
    /// limits alone.
    @Test func reloadPlan_separatesLiveAndRestartChanges() throws {
        let running = try DaemonConfiguration.load(
            from: LayeredConfiguration(flags: [:], environment: [:], filePath: nil)
        )
        var loaded = running
        loaded.serviceLimits.maxRows = 7
        loaded.serviceLimits.maxSQLLength = 1000
        loaded.httpLimits.maxConnections = 3
        loaded.logLevel = .debug
        loaded.port = 1
        loaded.databasePath = "/elsewhere.sqlite"
        loaded.tokens = ["0123456789abcdef"]
        let plan = running.reloadPlan(to: loaded)
        #expect(
            Set(plan.applied) == ["limits.max_rows", "limits.max_connections", "log.level", "auth.tokens"]
        )
        #expect(Set(plan.needRestart) == ["limits.max_sql_length", "listen.port", "database.path"])
        #expect(plan.configuration.serviceLimits.maxRows == 7)
        #expect(plan.configuration.serviceLimits.maxSQLLength == running.serviceLimits.maxSQLLength)
        #expect(plan.configuration.port == running.port)
        #expect(plan.configuration.databasePath == running.databasePath)
        #expect(plan.configuration.tokens == ["0123456789abcdef"])
        #expect(running.reloadPlan(to: running) == .init(configuration: running, applied: [], needRestart: []))
    }
}
