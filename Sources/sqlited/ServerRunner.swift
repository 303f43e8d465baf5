import Dispatch
import DqliteCluster
import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wires the database, the service and the HTTP server together, and runs them as a daemon: readiness and watchdog
/// notifications to systemd, socket activation, SIGHUP reload, and a graceful stop on SIGTERM or SIGINT.
///
/// Start: open the pool → apply migrations → start listening → `/health` ok → `READY=1`.
/// Stop: `STOPPING=1` → `/health` 503 → listeners closed → in-flight requests finish (up to `shutdown.timeout_ms`)
/// → WAL checkpoint (truncate) → database closed → exit 0.
struct ServerRunner {
    let configuration: DaemonConfiguration
    /// The resolved keys with their sources (for the startup log and reload messages).
    let entries: [LayeredConfiguration.Entry]
    /// The command line, kept to reload the same layers on SIGHUP.
    let options: ConfigurationOptions
    let version: String

    func runUntilStopped() throws {
        let levelControl = LogLevelControl(configuration.logLevel)
        let format = configuration.logFormat
        let sink = LogSink(fd: STDERR_FILENO) { count in
            DaemonLogHandler.line(
                level: .warning,
                label: "sqlited",
                message: "log lines dropped: the log output did not keep up",
                metadata: ["count": "\(count)"],
                format: format
            )
        }
        LoggingSystem.bootstrap { label in
            DaemonLogHandler(label: label, format: format, levelControl: levelControl, sink: sink)
        }
        let logger = Logger(label: "sqlited")
        let notifier = SystemdNotifier()
        // Whatever happens, what was logged is written before the process ends.
        defer { sink.flush() }

        do {
            let daemon = try start(logger: logger, notifier: notifier, levelControl: levelControl, sink: sink)
            daemon.waitUntilStopped()
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            notifier.notify("STATUS=cannot start: \(error)")
            throw error
        }
    }

    private func start(
        logger: Logger,
        notifier: SystemdNotifier,
        levelControl: LogLevelControl,
        sink: LogSink
    ) throws -> Daemon {
        let activation = try SocketActivation.takeFromProcess()
        var listeners: [ListenAddress]
        if activation.sockets.isEmpty {
            listeners = configuration.listenAddresses
        } else {
            listeners = activation.sockets.map { .fileDescriptor($0.fd) }
            logger.info(
                "using sockets passed by systemd",
                metadata: ["names": "\(activation.sockets.map(\.name).joined(separator: ","))"]
            )
        }
        guard !listeners.isEmpty else {
            throw StartupError(
                "nothing to listen on: listen.host and listen.unix_socket are empty and systemd passed no socket"
            )
        }

        let remoteListeners = listeners.compactMap(ListenerExposure.remoteDescription(of:))
        let unauthenticatedRemote = try configuration.checkUnauthenticatedExposure(
            remoteListeners: remoteListeners,
            source: activation.sockets.isEmpty
                ? (entries.last { $0.key == "listen.host" }?.source ?? .defaultValue) : .environment("LISTEN_FDS")
        )

        let pool: DatabasePool?
        let member: ClusterMember?
        let storage: StorageBackend
        if let cluster = configuration.cluster {
            (member, storage) = try Self.startClusterNode(cluster, configuration: configuration, logger: logger)
            pool = nil
        } else {
            let local = try Self.openLocalDatabase(configuration: configuration, logger: logger)
            (pool, member, storage) = (local, nil, .local(local))
        }
        // Whatever fails from here on, the database is closed or the node stopped before the error is reported.
        let closeStorage = {
            try? pool?.close()
            _ = try? member?.stop()
        }
        let service = ServiceWiring.makeService(
            configuration: configuration,
            storage: storage,
            version: version,
            logger: logger
        )

        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.listeners = listeners
        serverConfiguration.limits = configuration.httpLimits
        serverConfiguration.shutdownGracePeriod = configuration.shutdownTimeout
        serverConfiguration.serverHeader = "sqlited/\(version)"
        if configuration.eventLoopCount > 0 {
            serverConfiguration.eventLoopCount = configuration.eventLoopCount
        }
        let server = HTTPServer(configuration: serverConfiguration, handler: service, logger: logger)
        do {
            try server.start()
        } catch {
            closeStorage()
            throw error
        }
        ServiceWiring.serverDidStart(server, service: service)
        service.isAvailable = true

        logStartupSummary(logger: logger, server: server)
        if unauthenticatedRemote {
            logger.warning(
                "serving without authentication on a non-loopback address: anyone who can reach it can read and write",
                metadata: [
                    "listeners": "\(remoteListeners.joined(separator: ","))",
                    "reason": "no auth.tokens and auth.allow_unauthenticated_remote is true",
                ]
            )
        }

        let maintenance = pool.map { pool in
            MaintenanceScheduler(
                pool: pool,
                schedule: configuration.maintenance,
                metrics: service.options.metrics,
                logger: logger
            )
        }
        maintenance?.start()
        let idempotencyExpiry = IdempotencyExpiryScheduler(service: service, logger: logger)
        idempotencyExpiry.start()
        let daemon = Daemon(
            runner: self,
            pool: pool,
            member: member,
            service: service,
            server: server,
            maintenance: maintenance,
            idempotencyExpiry: idempotencyExpiry,
            logger: logger,
            notifier: notifier,
            levelControl: levelControl,
            logSink: sink,
            remoteListeners: remoteListeners
        )
        try daemon.installSignalHandlers()
        // Printed once the signal handlers are in place: a script or test that sends SIGTERM as soon as it reads
        // this line gets a graceful stop, not the default action.
        for address in server.boundAddresses {
            // Tests and scripts read the real port from this line.
            let url = address.port == nil ? "\(address)" : "http://\(address)"
            // Through the log's sink, after the lines logged before it, and written before going on.
            sink.append("sqlited: listening on \(url)\n")
        }
        sink.flush()
        notifier.notify("READY=1\nSTATUS=serving \(server.boundAddresses.map(\.description).joined(separator: " "))")
        if let interval = Watchdog.interval(environment: ProcessInfo.processInfo.environment, pid: getpid()) {
            daemon.startWatchdog(interval: interval)
        }
        return daemon
    }

    private func logStartupSummary(logger: Logger, server: HTTPServer) {
        let http = configuration.httpLimits
        let service = configuration.serviceLimits
        // In cluster mode no local database file is used: the line names the node and its data directory instead.
        var storage: Logger.Metadata = ["database": "\(configuration.databasePath)"]
        if let cluster = configuration.cluster {
            storage = [
                "cluster_node": "\(cluster.nodeID)", "cluster_address": "\(cluster.address)",
                "cluster_data_dir": "\(cluster.dataDirectory)",
            ]
        }
        logger.info(
            "sqlited started",
            metadata: storage.merging([
                "version": "\(version)", "sqlite": "\(sqliteLibraryVersion)", "pid": "\(getpid())",
                "config": "\(options.configFilePath(environment: ProcessInfo.processInfo.environment) ?? "none")",
                "readers": "\(configuration.readerCount)",
                "event_loops": "\(server.eventLoopCount)",
                "synchronous": "\(configuration.synchronous.rawValue)",
                "tokens": "\(configuration.tokens?.entries.count ?? 0)",
                "listeners": "\(server.boundAddresses.map(\.description).joined(separator: ","))",
                "limits": """
                body=\(http.maxBodySize) connections=\(http.maxConnections) rows=\(service.maxRows) \
                statement_timeout=\(service.statementTimeout) statements=\(service.maxStatements)
                """,
            ]) { first, _ in first }
        )
    }

    /// The local database, created with its folder when missing, with the migrations applied.
    private static func openLocalDatabase(configuration: DaemonConfiguration, logger: Logger) throws -> DatabasePool {
        try Self.createParentDirectory(of: configuration.databasePath)
        let pool = try Self.openPool(configuration: configuration)
        do {
            if let directory = configuration.migrationsDirectory {
                let applied = try MigrationStep.apply(directory: directory, pool: pool, logger: logger)
                logger.info("migrations applied", metadata: ["count": "\(applied.count)", "directory": "\(directory)"])
            }
        } catch {
            try? pool.close()
            throw error
        }
        return pool
    }

    /// Cluster mode: starts the embedded dqlite node (bootstrap, join or restart: see ``ClusterMember``) and the
    /// backend that sends the service's statements to the leader.
    private static func startClusterNode(
        _ cluster: ClusterSettings,
        configuration: DaemonConfiguration,
        logger: Logger
    ) throws -> (ClusterMember, StorageBackend) {
        try FileManager.default.createDirectory(
            atPath: cluster.dataDirectory,
            withIntermediateDirectories: true
        )
        // Before the node opens any connection: the SQL policy on every connection dqlite opens in this process
        // (the leader's connections run every client's statements, whichever node received them).
        try LeaderPolicy.register(limits: configuration.serviceLimits)
        let member = try ClusterMember(
            configuration: ClusterMemberConfiguration(
                id: cluster.nodeID,
                address: cluster.address,
                dataDirectory: cluster.dataDirectory,
                join: cluster.join,
                networkLatencyMilliseconds: cluster.networkLatencyMilliseconds
            )
        )
        let outcome = try member.start()
        logger.info(
            "dqlite node started",
            metadata: [
                "node_id": "\(cluster.nodeID)", "address": "\(cluster.address)", "outcome": "\(outcome)",
                "data_dir": "\(cluster.dataDirectory)",
            ]
        )
        let storage = ClusterStorage(
            nodeAddress: cluster.address,
            members: [cluster.address] + cluster.join,
            limits: configuration.serviceLimits
        ) { () throws(ClusterError) in
            try member.clusterInfo()
        }
        return (member, .cluster(storage))
    }

    /// The pool with the configured journal mode, `synchronous`, busy timeout, statement cache and readers, and the
    /// service's policy and limits on every connection.
    static func openPool(configuration settings: DaemonConfiguration) throws -> DatabasePool {
        let limits = settings.serviceLimits
        var configuration = SQLiteEngine.Configuration()
        configuration.journalMode = settings.journalMode
        configuration.synchronous = settings.synchronous
        configuration.busyTimeout = settings.busyTimeout
        configuration.statementCacheSize = settings.statementCacheSize
        configuration.prepareDatabase = { db in
            SQLiteService.prepareConnection(db, role: db.isReadOnly ? .reader : .writer, limits: limits)
        }
        var poolConfiguration = DatabasePool.PoolConfiguration(configuration: configuration)
        poolConfiguration.maximumReaderCount = settings.readerCount
        return try DatabasePool(path: settings.databasePath, configuration: poolConfiguration)
    }

    static func createParentDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
}
