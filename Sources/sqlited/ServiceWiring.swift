import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService

/// How the configuration reaches the service: at start, and on reload for the parts that change live.
///
enum ServiceWiring {
    /// The service over `storage`, configured from `configuration`.
    static func makeService(
        configuration: DaemonConfiguration,
        storage: StorageBackend,
        version: String,
        logger: Logger
    ) -> SQLiteService {
        var options = ServiceOptions()
        options.backupDirectory = configuration.backupDirectory
        options.requestLogLevel = configuration.requestLogLevel
        options.consoleEnabled = configuration.consoleEnabled
        options.idempotencyRetention = configuration.idempotencyRetention
        options.metrics = configuration.metricsEnabled ? ServiceMetrics(databasePath: configuration.databasePath) : nil
        // Group commit on both storages: one fsync per group locally, one Raft entry per group on the cluster.
        options.groupCommit = configuration.groupCommit
        if case .cluster(let cluster) = storage { options.metrics?.observeCluster(cluster) }
        let service = SQLiteService(
            storage: storage,
            limits: configuration.serviceLimits,
            version: version,
            logger: logger,
            options: options
        )
        service.setTokens(configuration.tokens)
        return service
    }

    /// Called once the server exists (it is created after the service, which is its handler).
    static func serverDidStart(_ server: HTTPServer, service: SQLiteService) {
        service.options.metrics?.setOpenConnectionsProvider { server.openConnectionCount }
    }

    /// Pushes the live parts of a reloaded configuration into the service.
    static func applyLiveChanges(_ configuration: DaemonConfiguration, to service: SQLiteService) {
        service.setLimits(configuration.serviceLimits)
        var options = service.options
        options.requestLogLevel = configuration.requestLogLevel
        options.consoleEnabled = configuration.consoleEnabled
        options.idempotencyRetention = configuration.idempotencyRetention
        service.setOptions(options)
        service.setTokens(configuration.tokens)
    }
}
