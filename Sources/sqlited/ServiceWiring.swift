import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService

/// How the configuration reaches the service: at start, and on reload for the parts that change live.
///
/// The service's options (backup directory, request log level, metrics) come with the operations work on another
/// branch; these two functions are where they are wired when it is merged (see the comments).
enum ServiceWiring {
    /// The service for `pool`, configured from `configuration`.
    static func makeService(
        configuration: DaemonConfiguration,
        pool: DatabasePool,
        version: String,
        logger: Logger
    ) -> SQLiteService {
        // Merge point (ServiceOptions): backupDirectory = configuration.backupDirectory, requestLogLevel =
        // configuration.requestLogLevel, metrics = configuration.metricsEnabled ? ServiceMetrics(databasePath:
        // configuration.databasePath) : nil, passed as `options:`.
        SQLiteService(pool: pool, limits: configuration.serviceLimits, version: version, logger: logger)
    }

    /// Called once the server exists (it is created after the service, which is its handler).
    static func serverDidStart(_ server: HTTPServer, service: SQLiteService) {
        // Merge point (metrics): options.metrics?.setOpenConnectionsProvider { server.openConnectionCount }.
    }

    /// Pushes the live parts of a reloaded configuration into the service.
    static func applyLiveChanges(_ configuration: DaemonConfiguration, to service: SQLiteService) {
        service.setLimits(configuration.serviceLimits)
        // Merge point (ServiceOptions): service.setOptions(...) with configuration.requestLogLevel; and the tokens
        // (configuration.tokens, configuration.readOnlyTokens) once authentication lands.
    }
}
