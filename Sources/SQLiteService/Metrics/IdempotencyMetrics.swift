import CoreMetrics
import Prometheus

/// The series of safe retries (`Idempotency-Key`):
///
/// | name | type | labels | meaning |
/// |---|---|---|---|
/// | `sqlited_idempotency_replays_total` | counter | | retries answered with a stored answer |
/// | `sqlited_idempotency_conflicts_total` | counter | `code` | keys refused: `IDEMPOTENCY_IN_PROGRESS` (409), `IDEMPOTENCY_KEY_REUSED` (422) |
/// | `sqlited_idempotency_keys_stored` | gauge | | keys stored, as counted by the latest expiry pass |
struct IdempotencyMetrics: Sendable {
    let replays: CoreMetrics.Counter
    let inProgress: CoreMetrics.Counter
    let reused: CoreMetrics.Counter
    let stored: CoreMetrics.Gauge

    init(factory: PrometheusMetricsFactory) {
        replays = CoreMetrics.Counter(label: "sqlited_idempotency_replays_total", factory: factory)
        inProgress = CoreMetrics.Counter(
            label: "sqlited_idempotency_conflicts_total",
            dimensions: [("code", "IDEMPOTENCY_IN_PROGRESS")],
            factory: factory
        )
        reused = CoreMetrics.Counter(
            label: "sqlited_idempotency_conflicts_total",
            dimensions: [("code", "IDEMPOTENCY_KEY_REUSED")],
            factory: factory
        )
        stored = CoreMetrics.Gauge(label: "sqlited_idempotency_keys_stored", factory: factory)
    }
}
