import CoreMetrics
import Prometheus
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The service's metrics, recorded through swift-metrics into a private Prometheus registry and served by
/// `GET /metrics` in the Prometheus text format.
///
/// The registry belongs to this object: it never bootstraps the process-wide `MetricsSystem`, so several services
/// (and parallel tests) keep separate figures. Gauges that describe the present (open connections, file sizes) are
/// read when the metrics are rendered.
///
/// | name | type | labels | meaning |
/// |---|---|---|---|
/// | `sqlited_http_requests_total` | counter | `endpoint`, `status`, `protocol` | requests answered |
/// | `sqlited_http_request_duration_seconds` | histogram | `endpoint`, `status`, `protocol` | time to produce the response |
/// | `sqlited_http_open_connections` | gauge | | client connections open now |
/// | `sqlited_statement_cache_hits_total` | counter | | prepared statements reused from a connection's cache |
/// | `sqlited_statement_cache_misses_total` | counter | | statements that had to be prepared |
/// | `sqlited_sqlite_busy_errors_total` | counter | | requests that failed with `SQLITE_BUSY*` |
/// | `sqlited_sqlite_locked_errors_total` | counter | | requests that failed with `SQLITE_LOCKED*` |
/// | `sqlited_database_size_bytes` | gauge | | size of the database file |
/// | `sqlited_wal_size_bytes` | gauge | | size of its `-wal` file (0 when absent) |
/// | `sqlited_group_commits_total` | counter | | write groups committed (one `COMMIT`, one fsync each) |
/// | `sqlited_group_commit_requests` | histogram | | requests per committed group |
/// | `sqlited_group_commit_duration_seconds` | histogram | | time the group's `COMMIT` took (its fsync) |
/// | `sqlited_streams_open`, `sqlited_stream_readers_held`, `sqlited_stream_rows_total`, `sqlited_stream_stalls_total` | | | streamed responses (``StreamMetrics``) |
/// | `sqlited_idempotency_replays_total`, `sqlited_idempotency_conflicts_total`, `sqlited_idempotency_keys_stored` | | | safe retries (``IdempotencyMetrics``) |
/// | `sqlited_transactions_open`, `sqlited_transactions_total`, `sqlited_transaction_waits_total` | | | interactive transactions (``TransactionMetrics``) |
/// | `sqlited_uptime_seconds` | gauge | | seconds since the service started (the console's status panel) |
///
/// In cluster mode, also the series of ``ClusterMetrics`` (role, leader changes, retries, wire round trips).
///
/// Related documentation: <https://prometheus.io/docs/instrumenting/exposition_formats/>
public final class ServiceMetrics: Sendable {
    /// The database file whose size (and WAL's) is reported.
    public let databasePath: String
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The cluster's series, once ``observeCluster(_:)`` was called.
    private let cluster = Mutex<ClusterMetrics?>(nil)
    /// Every request looks its series up here and only the first of each series adds one: a read lock, so that
    /// concurrent requests do not queue behind each other (a `Mutex` here was the most contended lock of `/query`).
    private let requestSeries = ReadWriteLock<[RequestKey: RequestSeries]>([:])
    private let openConnectionsProvider = Mutex<StoredClosure<Void, Int>?>(nil)
    private let statementCacheHits: CoreMetrics.Counter
    private let statementCacheMisses: CoreMetrics.Counter
    private let busyErrors: CoreMetrics.Counter
    private let lockedErrors: CoreMetrics.Counter
    private let openConnections: CoreMetrics.Gauge
    private let databaseSize: CoreMetrics.Gauge
    private let walSize: CoreMetrics.Gauge
    private let uptime: CoreMetrics.Gauge
    /// When the metrics were made: with the service, as the daemon starts.
    private let started = ContinuousClock.now
    /// Checkpoints, `VACUUM` and `PRAGMA optimize` runs.
    let maintenance: MaintenanceMetrics
    /// Streamed responses.
    let streams: StreamMetrics
    /// `Idempotency-Key` replays, conflicts and stored keys.
    let idempotency: IdempotencyMetrics
    /// Interactive transactions open, ended and waiting for the writer.
    let transactions: TransactionMetrics
    let groupCommits: CoreMetrics.Counter
    let groupCommitRequests: CoreMetrics.Recorder
    let groupCommitDuration: CoreMetrics.Timer

    /// A series' labels (an enum and two integers hash far faster than a string, and this is looked up once per
    /// request).
    private struct RequestKey: Hashable {
        var endpoint: ServiceEndpoint
        var status: Int
        /// Served over HTTP/2 (`protocol="h2"`) rather than HTTP/1.x (`protocol="http/1.1"`).
        var http2: Bool
    }

    private struct RequestSeries: Sendable {
        var count: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
    }

    /// Creates the metrics, with a registry of their own.
    ///
    /// - Parameter databasePath: The database file whose size and WAL size are reported.
    public init(databasePath: String) {
        self.databasePath = databasePath
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // From 1 ms (a cached point query) to 10 s (past the default statement time limit).
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        // Requests per group: 1 (no concurrency) up to the default max_requests (256).
        factory.defaultValueHistogramBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024]
        factory.durationHistogramBuckets[ClusterMetrics.roundTripLabel] = ClusterMetrics.roundTripBuckets
        self.registry = registry
        self.factory = factory
        statementCacheHits = CoreMetrics.Counter(label: "sqlited_statement_cache_hits_total", factory: factory)
        statementCacheMisses = CoreMetrics.Counter(label: "sqlited_statement_cache_misses_total", factory: factory)
        busyErrors = CoreMetrics.Counter(label: "sqlited_sqlite_busy_errors_total", factory: factory)
        lockedErrors = CoreMetrics.Counter(label: "sqlited_sqlite_locked_errors_total", factory: factory)
        openConnections = CoreMetrics.Gauge(label: "sqlited_http_open_connections", factory: factory)
        databaseSize = CoreMetrics.Gauge(label: "sqlited_database_size_bytes", factory: factory)
        walSize = CoreMetrics.Gauge(label: "sqlited_wal_size_bytes", factory: factory)
        uptime = CoreMetrics.Gauge(label: "sqlited_uptime_seconds", factory: factory)
        maintenance = MaintenanceMetrics(factory: factory)
        streams = StreamMetrics(factory: factory)
        idempotency = IdempotencyMetrics(factory: factory)
        transactions = TransactionMetrics(factory: factory)
        groupCommits = CoreMetrics.Counter(label: "sqlited_group_commits_total", factory: factory)
        groupCommitRequests = CoreMetrics.Recorder(label: "sqlited_group_commit_requests", factory: factory)
        groupCommitDuration = CoreMetrics.Timer(label: "sqlited_group_commit_duration_seconds", factory: factory)
    }

    /// Sets where the open connection count comes from (the HTTP server's `openConnectionCount`); read at each
    /// render. Without a provider the gauge stays 0.
    public func setOpenConnectionsProvider(_ provider: @escaping @Sendable () -> Int) {
        openConnectionsProvider.withLock { $0 = StoredClosure { _ in provider() } }
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4), gauges refreshed first.
    public func render() -> [UInt8] {
        if let provider = openConnectionsProvider.withLock({ $0 }) {
            openConnections.record(provider(()))
        }
        databaseSize.record(Self.fileSize(databasePath))
        walSize.record(Self.fileSize(databasePath + "-wal"))
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        uptime.record(Double(seconds) + Double(attoseconds) / 1e18)
        cluster.withLock { $0 }?.refresh()
        return registry.emitToBuffer()
    }

    /// Adds the cluster's series (``ClusterMetrics``) and records what the clients of `storage` count and measure
    /// from now on. Called once, when the service runs on the cluster backend; a later call changes nothing.
    public func observeCluster(_ storage: ClusterStorage) {
        cluster.withLock { cluster in
            if cluster == nil {
                cluster = ClusterMetrics(storage: storage, factory: factory)
            }
        }
    }

    // MARK: Recording

    /// Counts one answered request and its duration, under its endpoint's label (``ServiceEndpoint/label``: any path that
    /// names no endpoint is `other`, so that clients cannot create a series per path they make up).
    func recordRequest(endpoint: ServiceEndpoint, status: Int, http2: Bool = false, nanoseconds: Int64) {
        let key = RequestKey(endpoint: endpoint, status: status, http2: http2)
        let series = requestSeries.withReadLock { $0[key] } ?? addSeries(key)
        series.count.increment()
        series.duration.recordNanoseconds(nanoseconds)
    }

    /// The series of `key`, created unless another request did it first.
    private func addSeries(_ key: RequestKey) -> RequestSeries {
        requestSeries.withWriteLock { series in
            if let existing = series[key] {
                return existing
            }
            let dimensions = [
                ("endpoint", key.endpoint.label), ("status", String(key.status)),
                ("protocol", key.http2 ? "h2" : "http/1.1"),
            ]
            let created = RequestSeries(
                count: CoreMetrics.Counter(
                    label: "sqlited_http_requests_total",
                    dimensions: dimensions,
                    factory: factory
                ),
                duration: CoreMetrics.Timer(
                    label: "sqlited_http_request_duration_seconds",
                    dimensions: dimensions,
                    factory: factory
                )
            )
            series[key] = created
            return created
        }
    }

    /// Adds statement cache lookups made by one request.
    func recordStatementCache(hits: Int, misses: Int) {
        if hits > 0 { statementCacheHits.increment(by: hits) }
        if misses > 0 { statementCacheMisses.increment(by: misses) }
    }

    /// Counts a request that failed with the error `code` when it is a busy or locked error.
    func recordFailure(code: String) {
        if code.hasPrefix("SQLITE_BUSY") {
            busyErrors.increment()
        } else if code.hasPrefix("SQLITE_LOCKED") {
            lockedErrors.increment()
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        // stat(2), not open(2): opening the database file in this process and closing it would drop SQLite's POSIX
        // locks on it.
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }
}
