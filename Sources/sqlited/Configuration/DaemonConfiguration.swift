import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService

/// Everything the daemon is configured with, validated.
///
/// Built by ``load(from:)`` from a ``LayeredConfiguration``; `config/sqlited.yaml` documents every key with its
/// default. Values are checked here, so that a wrong value stops the start (or is refused by a reload) with a message
/// naming the key and where it came from.
struct DaemonConfiguration: Sendable, Equatable {
    /// Log line formats.
    enum LogFormat: String, Sendable, CaseIterable {
        /// `timestamp level label: message key=value …` — readable in `journalctl`.
        case text
        /// One JSON object per line.
        case json
    }

    /// The TCP address, or `nil` when `listen.host` is empty (no TCP listener).
    var host: String?
    var port: UInt16
    /// A Unix domain socket to listen on too, or `nil`.
    var unixSocketPath: String?
    /// The HTTP server's event loops; 0: one per CPU the process may use.
    var eventLoopCount: Int
    var databasePath: String
    var journalMode: JournalMode
    var synchronous: SynchronousMode
    var busyTimeout: Duration
    var readerCount: Int
    var statementCacheSize: Int
    /// `database.checkpoint.wal_size_limit` and `database.optimize_interval`.
    var maintenance: MaintenanceSchedule
    /// `database.group_commit.*`.
    var groupCommit: GroupCommitOptions
    var httpLimits: HTTPLimits
    var serviceLimits: ServiceLimits
    var shutdownTimeout: Duration
    var logLevel: Logger.Level
    var logFormat: LogFormat
    var requestLogLevel: Logger.Level
    var backupDirectory: String?
    var migrationsDirectory: String?
    var metricsEnabled: Bool
    /// `console.enabled`: serve the web console (`GET /ui`, and `GET /` redirecting to it).
    var consoleEnabled: Bool = true
    /// `idempotency.retention`: how long a stored `Idempotency-Key` answers retries (seconds; default a day).
    var idempotencyRetention: Duration = .seconds(86_400)
    /// The accepted bearer tokens (hashes, names and roles), or `nil` when none is configured: authentication off.
    var tokens: TokenStore?
    /// Whether the daemon may listen on a non-loopback address with no token configured.
    var allowUnauthenticatedRemote: Bool
    /// `cluster.*`: the dqlite cluster this process is a node of, or `nil` (the default) for the local database.
    var cluster: ClusterSettings? = nil

    /// Reads and validates every key, then rejects unknown keys.
    ///
    /// - Throws: ``ConfigurationError`` naming the first bad key and where its value came from.
    static func load(from values: LayeredConfiguration) throws(ConfigurationError) -> DaemonConfiguration {
        let host = try values.string("listen.host", default: "127.0.0.1")
        let port = try values.int("listen.port", default: 8080, range: 0...65_535)
        let unixSocket = try values.string("listen.unix_socket", default: "")
        guard unixSocket.utf8.count < 108 else {
            throw ConfigurationError(
                key: "listen.unix_socket",
                source: values.source(of: "listen.unix_socket"),
                message: "path longer than 107 bytes (the sun_path limit)"
            )
        }

        let eventLoops = try values.int("listen.event_loops", default: 0, range: 0...256)

        let databasePath = try values.string("database.path", default: "data/sqlited.sqlite")
        guard !databasePath.isEmpty else {
            throw ConfigurationError(
                key: "database.path",
                source: values.source(of: "database.path"),
                message: "must name a file"
            )
        }
        let journalMode = try values.choice("database.journal_mode", default: JournalModeSetting.wal)
        let synchronous = try values.choice("database.synchronous", default: SynchronousMode.full)
        let busyTimeout = try values.int("database.busy_timeout_ms", default: 5000, range: 0...600_000)
        let readers = try values.int("database.readers", default: 4, range: 1...64)
        let cacheSize = try values.int("database.statement_cache_size", default: 64, range: 0...10_000)
        let maintenance = try Self.loadMaintenance(from: values)
        let groupCommit = try Self.loadGroupCommit(from: values)

        var http = HTTPLimits()
        http.maxBodySize = try values.int("limits.max_body_size", default: http.maxBodySize, range: 1...(1 << 31))
        http.maxHeadSize = try values.int("limits.max_head_size", default: http.maxHeadSize, range: 1024...(1 << 20))
        http.maxHeaderCount = try values.int("limits.max_header_count", default: http.maxHeaderCount, range: 1...10_000)
        http.maxTargetLength = try values.int(
            "limits.max_target_length",
            default: http.maxTargetLength,
            range: 16...(1 << 20)
        )
        http.headTimeout = .milliseconds(
            try values.int(
                "limits.head_timeout_ms",
                default: Self.milliseconds(http.headTimeout),
                range: 100...3_600_000
            )
        )
        http.bodyInactivityTimeout = .milliseconds(
            try values.int(
                "limits.body_timeout_ms",
                default: Self.milliseconds(http.bodyInactivityTimeout),
                range: 100...3_600_000
            )
        )
        http.idleTimeout = .milliseconds(
            try values.int(
                "limits.idle_timeout_ms",
                default: Self.milliseconds(http.idleTimeout),
                range: 100...86_400_000
            )
        )
        http.sendTimeout = .milliseconds(
            try values.int(
                "limits.send_timeout_ms",
                default: Self.milliseconds(http.sendTimeout),
                range: 100...3_600_000
            )
        )
        http.streamStallTimeout = .milliseconds(
            try values.int(
                "limits.stream_stall_timeout_ms",
                default: Self.milliseconds(http.streamStallTimeout),
                range: 100...3_600_000
            )
        )
        http.maxConnections = try values.int(
            "limits.max_connections",
            default: http.maxConnections,
            range: 1...1_000_000
        )
        try Self.loadHTTP2(from: values, into: &http)

        var service = ServiceLimits()
        service.maxRows = try values.int("limits.max_rows", default: service.maxRows, range: 0...100_000_000)
        service.statementTimeout = .milliseconds(
            try values.int(
                "limits.statement_timeout_ms",
                default: Self.milliseconds(service.statementTimeout),
                range: 1...3_600_000
            )
        )
        service.streamTimeout = .milliseconds(
            try values.int(
                "limits.stream_timeout_ms",
                default: Self.milliseconds(service.streamTimeout),
                range: 1...86_400_000
            )
        )
        service.maxSQLLength = Int32(
            try values.int("limits.max_sql_length", default: Int(service.maxSQLLength), range: 1...1_000_000_000)
        )
        service.maxValueLength = Int32(
            try values.int("limits.max_value_length", default: Int(service.maxValueLength), range: 1...1_000_000_000)
        )
        service.maxExpressionDepth = Int32(
            try values.int("limits.max_expression_depth", default: Int(service.maxExpressionDepth), range: 1...10_000)
        )
        service.maxParameters = Int32(
            try values.int("limits.max_parameters", default: Int(service.maxParameters), range: 1...250_000)
        )
        service.maxBatchSize = try values.int(
            "limits.max_batch_size",
            default: service.maxBatchSize,
            range: 1...10_000_000
        )
        service.maxStatements = try values.int(
            "limits.max_statements",
            default: service.maxStatements,
            range: 1...1_000_000
        )
        service.writerWaitTimeout = .milliseconds(busyTimeout)
        service.transactionIdleTimeout = .milliseconds(
            try values.int(
                "limits.transaction_idle_timeout_ms",
                default: Self.milliseconds(service.transactionIdleTimeout),
                range: 1...3_600_000
            )
        )
        service.transactionMaxLifetime = .milliseconds(
            try values.int(
                "limits.transaction_max_lifetime_ms",
                default: Self.milliseconds(service.transactionMaxLifetime),
                range: 1...86_400_000
            )
        )
        service.maxReadTransactions = try values.int(
            "limits.max_read_transactions",
            default: max(1, readers / 2),
            range: 1...64
        )

        let shutdownTimeout = try values.int("shutdown.timeout_ms", default: 10_000, range: 0...3_600_000)
        let logLevel = try values.choice("log.level", default: Logger.Level.info)
        let logFormat = try values.choice("log.format", default: LogFormat.text)
        let requestLogLevel = try values.choice("log.request_level", default: Logger.Level.info)
        let backupDirectory = try values.string("backup.directory", default: "")
        let migrationsDirectory = try values.string("migrations.directory", default: "")
        let metricsEnabled = try values.bool("metrics.enabled", default: true)
        let consoleEnabled = try values.bool("console.enabled", default: true)
        let idempotencyRetention = try values.int("idempotency.retention", default: 86_400, range: 1...31_536_000)
        let tokens = try Self.loadTokens(from: values)
        let allowUnauthenticatedRemote = try values.bool("auth.allow_unauthenticated_remote", default: false)
        let cluster = try Self.loadCluster(from: values)

        try values.checkForUnknownKeys()
        return DaemonConfiguration(
            host: host.isEmpty ? nil : host,
            port: UInt16(port),
            unixSocketPath: unixSocket.isEmpty ? nil : unixSocket,
            eventLoopCount: eventLoops,
            databasePath: databasePath,
            journalMode: journalMode.mode,
            synchronous: synchronous,
            busyTimeout: .milliseconds(busyTimeout),
            readerCount: readers,
            statementCacheSize: cacheSize,
            maintenance: maintenance,
            groupCommit: groupCommit,
            httpLimits: http,
            serviceLimits: service,
            shutdownTimeout: .milliseconds(shutdownTimeout),
            logLevel: logLevel,
            logFormat: logFormat,
            requestLogLevel: requestLogLevel,
            backupDirectory: backupDirectory.isEmpty ? nil : backupDirectory,
            migrationsDirectory: migrationsDirectory.isEmpty ? nil : migrationsDirectory,
            metricsEnabled: metricsEnabled,
            consoleEnabled: consoleEnabled,
            idempotencyRetention: .seconds(idempotencyRetention),
            tokens: tokens,
            allowUnauthenticatedRemote: allowUnauthenticatedRemote,
            cluster: cluster
        )
    }

    /// The TCP and Unix socket addresses to bind when systemd passes no sockets.
    var listenAddresses: [ListenAddress] {
        var addresses: [ListenAddress] = []
        if let host { addresses.append(.tcp(host: host, port: port)) }
        if let unixSocketPath { addresses.append(.unix(path: unixSocketPath)) }
        return addresses
    }

    /// A duration in whole milliseconds (the unit of the `*_ms` keys).
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// The journal modes the daemon accepts: the reader pool needs WAL, so it is the only one.
enum JournalModeSetting: String, Sendable, CaseIterable {
    case wal

    var mode: JournalMode { .wal }
}
