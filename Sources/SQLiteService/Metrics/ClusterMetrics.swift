import CoreMetrics
import DqliteClient
import DqliteCluster
import Prometheus
import Synchronization

/// The cluster series of ``ServiceMetrics`` (cluster mode only; see ``ServiceMetrics/observeCluster(_:)``).
///
/// | name | type | labels | meaning |
/// |---|---|---|---|
/// | `sqlited_cluster_role` | gauge | `role` (`voter`, `standby`, `spare`, `none`) | 1 for this node's role in the Raft configuration, 0 for the others (`none`: not a member, or the node did not answer) |
/// | `sqlited_cluster_is_leader` | gauge | | 1 while this node is the leader |
/// | `sqlited_cluster_leader_changes_total` | counter | `client` (`read`, `write`) | leaders found other than the one the client used before |
/// | `sqlited_cluster_retries_total` | counter | `client` | calls tried again after a failure of the connection or the leader |
/// | `sqlited_cluster_outcome_unknown_total` | counter | `client` | writes answered 503 because they may or may not have been committed |
/// | `sqlited_cluster_round_trip_seconds` | histogram | `client` | one request to the leader and its whole answer (the wire round trip with the leader's work) |
/// | `sqlited_cluster_busy_waits_total` | counter | `client` | writes and group `BEGIN IMMEDIATE`s that met the leader's write lock held by another connection (another node's group) and were asked again after a short pause |
/// | `sqlited_cluster_read_batch_reads` | histogram | | `/query` reads per batch sent to the leader in one write (``ClusterStorage/runReads(_:)``) |
///
/// The cluster's write groups (issue #26) are counted in the group commit series the local writer uses:
/// `sqlited_group_commits_total` (groups committed; its rate is the groups per second),
/// `sqlited_group_commit_requests` (histogram: requests per group) and `sqlited_group_commit_duration_seconds` (the
/// group's `COMMIT`: one Raft round on a majority).
///
/// The role gauges are read when the metrics are rendered (CLUSTER and LEADER asked of this node); the others are
/// recorded as the clients serve calls.
final class ClusterMetrics: Sendable {
    static let roles = ["voter", "standby", "spare", "none"]

    /// Feeds one client's series.
    struct ClientObserver: ClusterClientObserver {
        let leaderChanges: CoreMetrics.Counter
        let retries: CoreMetrics.Counter
        let outcomesUnknown: CoreMetrics.Counter
        let roundTrips: CoreMetrics.Timer
        let busyWaits: CoreMetrics.Counter

        init(client: String, factory: PrometheusMetricsFactory) {
            let dimensions = [("client", client)]
            leaderChanges = CoreMetrics.Counter(
                label: "sqlited_cluster_leader_changes_total",
                dimensions: dimensions,
                factory: factory
            )
            retries = CoreMetrics.Counter(
                label: "sqlited_cluster_retries_total",
                dimensions: dimensions,
                factory: factory
            )
            outcomesUnknown = CoreMetrics.Counter(
                label: "sqlited_cluster_outcome_unknown_total",
                dimensions: dimensions,
                factory: factory
            )
            roundTrips = CoreMetrics.Timer(
                label: ClusterMetrics.roundTripLabel,
                dimensions: dimensions,
                factory: factory
            )
            busyWaits = CoreMetrics.Counter(
                label: "sqlited_cluster_busy_waits_total",
                dimensions: dimensions,
                factory: factory
            )
        }

        func roundTrip(_ duration: Duration) {
            roundTrips.recordNanoseconds(duration.clampedNanoseconds)
        }

        func retried() { retries.increment() }

        func outcomeUnknown() { outcomesUnknown.increment() }

        func leaderChanged(to id: UInt64) { leaderChanges.increment() }

        func busyWaited() { busyWaits.increment() }
    }

    static let roundTripLabel = "sqlited_cluster_round_trip_seconds"

    /// From 100 µs (a point query on a leader next door) to 10 s (the client's request timeout).
    static let roundTripBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    private let status: ClusterStorage.StatusProvider
    private let roleGauges: [String: CoreMetrics.Gauge]
    private let isLeader: CoreMetrics.Gauge

    /// Creates the series (exported at 0 before anything happened) and observes both clients of `storage`.
    init(storage: ClusterStorage, factory: PrometheusMetricsFactory) {
        status = storage.status
        var gauges: [String: CoreMetrics.Gauge] = [:]
        for role in Self.roles {
            gauges[role] = CoreMetrics.Gauge(
                label: "sqlited_cluster_role",
                dimensions: [("role", role)],
                factory: factory
            )
        }
        roleGauges = gauges
        isLeader = CoreMetrics.Gauge(label: "sqlited_cluster_is_leader", factory: factory)
        storage.writer.setObserver(ClientObserver(client: "write", factory: factory))
        storage.reader.setObserver(ClientObserver(client: "read", factory: factory))
        let readBatchReads = CoreMetrics.Recorder(label: "sqlited_cluster_read_batch_reads", factory: factory)
        storage.readBatchObserver.withLock { $0 = StoredClosure { reads in readBatchReads.record(reads) } }
    }

    /// Reads this node's role and whether it leads.
    func refresh() {
        let info = try? status()
        let me = info.flatMap { info in info.nodes.first { $0.id == info.nodeID } }
        let role = me.map(\.role.apiName) ?? "none"
        for (name, gauge) in roleGauges {
            gauge.record(name == role ? 1 : 0)
        }
        isLeader.record(info.map { $0.leaderID == $0.nodeID && me != nil } == true ? 1 : 0)
    }
}
