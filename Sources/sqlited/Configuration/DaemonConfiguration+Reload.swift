import Logging
import SQLiteService

extension DaemonConfiguration {
    /// What a reload does with a newly loaded configuration.
    struct ReloadPlan: Sendable, Equatable {
        /// The configuration to run with: the running one with every live change applied.
        var configuration: DaemonConfiguration
        /// Keys whose new value takes effect now.
        var applied: [String]
        /// Keys whose new value needs a restart; the running value stays, untouched.
        var needRestart: [String]
    }

    /// Splits the differences between `self` (running) and `loaded` into what a reload applies (log levels, HTTP
    /// limits, per-request service limits, shutdown timeout, tokens, the console) and what needs a restart
    /// (listeners, database settings, limits fixed on each SQLite connection when it opens, log format, directories,
    /// metrics).
    func reloadPlan(to loaded: DaemonConfiguration) -> ReloadPlan {
        var result = self
        var applied: [String] = []
        var needRestart: [String] = []

        func live<T: Equatable>(_ key: String, _ path: WritableKeyPath<DaemonConfiguration, T>) {
            guard self[keyPath: path] != loaded[keyPath: path] else { return }
            result[keyPath: path] = loaded[keyPath: path]
            applied.append(key)
        }
        func restart<T: Equatable>(_ key: String, _ path: KeyPath<DaemonConfiguration, T>) {
            if self[keyPath: path] != loaded[keyPath: path] { needRestart.append(key) }
        }

        restart("listen.host", \.host)
        restart("listen.port", \.port)
        restart("listen.unix_socket", \.unixSocketPath)
        restart("listen.event_loops", \.eventLoopCount)
        restart("database.path", \.databasePath)
        restart("database.journal_mode", \.journalMode)
        restart("database.synchronous", \.synchronous)
        restart("database.busy_timeout_ms", \.busyTimeout)
        restart("database.readers", \.readerCount)
        restart("database.statement_cache_size", \.statementCacheSize)
        restart("database.checkpoint.wal_size_limit", \.maintenance.walSizeLimit)
        restart("database.optimize_interval", \.maintenance.optimizeInterval)
        restart("database.group_commit", \.groupCommit)
        restart("cluster", \.cluster)
        live("limits.max_body_size", \.httpLimits.maxBodySize)
        live("limits.max_head_size", \.httpLimits.maxHeadSize)
        live("limits.max_header_count", \.httpLimits.maxHeaderCount)
        live("limits.max_target_length", \.httpLimits.maxTargetLength)
        live("limits.head_timeout_ms", \.httpLimits.headTimeout)
        live("limits.body_timeout_ms", \.httpLimits.bodyInactivityTimeout)
        live("limits.idle_timeout_ms", \.httpLimits.idleTimeout)
        live("limits.send_timeout_ms", \.httpLimits.sendTimeout)
        live("limits.stream_stall_timeout_ms", \.httpLimits.streamStallTimeout)
        live("limits.max_connections", \.httpLimits.maxConnections)
        live("listen.http2", \.httpLimits.http2.enabled)
        live("limits.http2_max_concurrent_streams", \.httpLimits.http2.maxConcurrentStreams)
        live("limits.http2_initial_window_size", \.httpLimits.http2.initialWindowSize)
        live("limits.max_rows", \.serviceLimits.maxRows)
        live("limits.statement_timeout_ms", \.serviceLimits.statementTimeout)
        live("limits.stream_timeout_ms", \.serviceLimits.streamTimeout)
        live("limits.max_batch_size", \.serviceLimits.maxBatchSize)
        live("limits.max_statements", \.serviceLimits.maxStatements)
        live("limits.transaction_idle_timeout_ms", \.serviceLimits.transactionIdleTimeout)
        live("limits.transaction_max_lifetime_ms", \.serviceLimits.transactionMaxLifetime)
        live("limits.max_read_transactions", \.serviceLimits.maxReadTransactions)
        // sqlite3_limit values are set on each connection as it opens: changing them for new readers only would
        // leave connections disagreeing, so they wait for a restart.
        restart("limits.max_sql_length", \.serviceLimits.maxSQLLength)
        restart("limits.max_value_length", \.serviceLimits.maxValueLength)
        restart("limits.max_expression_depth", \.serviceLimits.maxExpressionDepth)
        restart("limits.max_parameters", \.serviceLimits.maxParameters)
        live("shutdown.timeout_ms", \.shutdownTimeout)
        live("log.level", \.logLevel)
        restart("log.format", \.logFormat)
        live("log.request_level", \.requestLogLevel)
        restart("backup.directory", \.backupDirectory)
        restart("migrations.directory", \.migrationsDirectory)
        restart("metrics.enabled", \.metricsEnabled)
        live("console.enabled", \.consoleEnabled)
        live("idempotency.retention", \.idempotencyRetention)
        live("auth.tokens", \.tokens)
        live("auth.allow_unauthenticated_remote", \.allowUnauthenticatedRemote)
        return ReloadPlan(configuration: result, applied: applied, needRestart: needRestart)
    }
}
