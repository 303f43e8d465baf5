import Foundation
import HTTPServer
import Logging
import SQLiteService
import Testing

@testable import sqlited

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's pure decisions, without a process: socket activation variables, the watchdog interval and the
/// reload plan.
@Suite struct DaemonUnitTests {
    /// The shared log level reads back every level it is set to, and a handler without a level of its own follows
    /// it at once (what a reload relies on).
    @Test func logLevelControl_roundTripsEveryLevelAndHandlersFollowIt() {
        let control = LogLevelControl(.info)
        #expect(control.current == .info)
        for level in Logger.Level.allCases {
            control.current = level
            #expect(control.current == level)
        }
        let handler = DaemonLogHandler(label: "test", format: .text, levelControl: control)
        control.current = .error
        #expect(handler.logLevel == .error)
        control.current = .trace
        #expect(handler.logLevel == .trace)
    }

    /// Text lines keep `key=value` parseable: a value is quoted when it is empty or holds a space, a quote, a
    /// control character or a Unicode line break, and left bare otherwise (non-ASCII letters included).
    @Test func textLine_quotesOnlyValuesThatNeedIt() {
        let line = DaemonLogHandler.line(
            level: .info,
            label: "sqlited",
            message: "request",
            metadata: [
                "a": "plain", "b": "two words", "c": "say \"hi\"", "d": "tab\there", "e": "", "f": "tâble",
                "g": "line\u{2028}break", "h": .stringConvertible(42),
            ],
            format: .text
        )
        #expect(
            line == #"info sqlited: request a=plain b="two words" c="say \"hi\"" d="tab\there" e="" f=tâble "#
                + "g=\"line\u{2028}break\" h=42\n"
        )
    }

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

    /// `idempotency.retention` defaults to a day, is read from the environment, and a reload applies it live.
    @Test func idempotencyRetention_loadsAndReloadsLive() throws {
        let running = try DaemonConfiguration.load(
            from: LayeredConfiguration(flags: [:], environment: [:], filePath: nil)
        )
        #expect(running.idempotencyRetention == .seconds(86_400))
        let loaded = try DaemonConfiguration.load(
            from: LayeredConfiguration(flags: [:], environment: ["SQLITED_IDEMPOTENCY_RETENTION": "60"], filePath: nil)
        )
        #expect(loaded.idempotencyRetention == .seconds(60))
        let plan = running.reloadPlan(to: loaded)
        #expect(plan.applied == ["idempotency.retention"])
        #expect(plan.configuration.idempotencyRetention == .seconds(60))
    }

    /// A reload applies live keys (`console.enabled` among them), lists restart-only keys without applying them, and
    /// leaves SQLite connection limits alone.
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
        let tokens = try TokenStore(
            entries: [.init(name: "ci", sha256Hex: String(repeating: "ab", count: 32), role: .read)]
        )
        loaded.tokens = tokens
        loaded.consoleEnabled = false
        let plan = running.reloadPlan(to: loaded)
        #expect(
            Set(plan.applied) == [
                "limits.max_rows", "limits.max_connections", "log.level", "auth.tokens", "console.enabled",
            ]
        )
        #expect(running.consoleEnabled && !plan.configuration.consoleEnabled)
        #expect(Set(plan.needRestart) == ["limits.max_sql_length", "listen.port", "database.path"])
        #expect(plan.configuration.serviceLimits.maxRows == 7)
        #expect(plan.configuration.serviceLimits.maxSQLLength == running.serviceLimits.maxSQLLength)
        #expect(plan.configuration.port == running.port)
        #expect(plan.configuration.databasePath == running.databasePath)
        #expect(plan.configuration.tokens == tokens)
        #expect(running.reloadPlan(to: running) == .init(configuration: running, applied: [], needRestart: []))
    }

    /// `auth.tokens` entries become a store with names, roles and hashes (hex in either case, spaces around
    /// environment entries ignored); no entry means no store (authentication off).
    @Test func tokens_parseNameRoleAndHash() throws {
        let read = TokenStore.sha256Hex(of: "read-token-0123456789")
        let admin = TokenStore.sha256Hex(of: "admin-token-0123456789")
        let values = try LayeredConfiguration(
            flags: [:],
            environment: ["SQLITED_AUTH_TOKENS": "reporting:read:\(read) , ops.1:admin:\(admin.uppercased())"],
            filePath: nil
        )
        let configuration = try DaemonConfiguration.load(from: values)
        let store = try #require(configuration.tokens)
        #expect(store.entries.map(\.name) == ["reporting", "ops.1"])
        #expect(store.entries.map(\.role) == [.read, .admin])
        #expect(store.authenticate(token: "admin-token-0123456789")?.name == "ops.1")
        #expect(store.authenticate(token: "read-token-0123456789")?.role == .read)
        #expect(store.authenticate(token: "read-token-012345678") == nil)
        #expect(values.entries.last { $0.key == "auth.tokens" }?.value == "[reporting:read, ops.1:admin]")

        let none = try LayeredConfiguration(flags: [:], environment: ["SQLITED_AUTH_TOKENS": ""], filePath: nil)
        #expect(try DaemonConfiguration.load(from: none).tokens == nil)
    }

    /// TCP hosts are judged by name; inherited sockets by their bound address: AF_UNIX is local, 127.0.0.1 is
    /// loopback, 0.0.0.0 is remote.
    @Test func listenerExposure_judgesHostsAndInheritedSockets() throws {
        #expect(ListenerExposure.remoteDescription(of: .tcp(host: "127.0.0.1", port: 80)) == nil)
        #expect(ListenerExposure.remoteDescription(of: .tcp(host: "::", port: 80)) == "[::]:80")
        #expect(ListenerExposure.remoteDescription(of: .unix(path: "/run/sqlited.sock")) == nil)

        let unixSocket = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(unixSocket) }
        #expect(ListenerExposure.remoteDescription(of: .fileDescriptor(unixSocket)) == nil)
        for (host, remote) in [("127.0.0.1", false), ("0.0.0.0", true)] {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            inet_pton(AF_INET, host, &address.sin_addr)
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(bound == 0)
            let description = ListenerExposure.remoteDescription(of: .fileDescriptor(fd))
            #expect((description != nil) == remote, "\(host): \(description ?? "local")")
            if remote { #expect(description?.contains("(0.0.0.0)") == true) }
        }
        #expect(ListenerExposure.remoteDescription(of: .fileDescriptor(-1)) == "fd:-1 (unknown address)")
    }
}
