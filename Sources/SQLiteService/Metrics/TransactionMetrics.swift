import CoreMetrics
import Prometheus

/// The series of interactive transactions (`/transactions`):
///
/// | name | type | labels | meaning |
/// |---|---|---|---|
/// | `sqlited_transactions_open` | gauge | `mode` (`write`, `read_only`) | interactive transactions open now |
/// | `sqlited_transactions_total` | counter | `outcome` (`committed`, `rolled_back`, `expired`) | interactive transactions ended |
/// | `sqlited_transaction_waits_total` | counter | `outcome` (`granted`, `busy`) | opens of a write transaction that found the writer in use: had it after waiting, or answered 503 `SQLITE_BUSY` |
struct TransactionMetrics: Sendable {
    let openWrite: CoreMetrics.Gauge
    let openReadOnly: CoreMetrics.Gauge
    let committed: CoreMetrics.Counter
    let rolledBack: CoreMetrics.Counter
    let expired: CoreMetrics.Counter
    let waitsGranted: CoreMetrics.Counter
    let waitsBusy: CoreMetrics.Counter

    init(factory: PrometheusMetricsFactory) {
        func gauge(_ mode: String) -> CoreMetrics.Gauge {
            CoreMetrics.Gauge(label: "sqlited_transactions_open", dimensions: [("mode", mode)], factory: factory)
        }
        func ended(_ outcome: String) -> CoreMetrics.Counter {
            CoreMetrics.Counter(
                label: "sqlited_transactions_total",
                dimensions: [("outcome", outcome)],
                factory: factory
            )
        }
        func wait(_ outcome: String) -> CoreMetrics.Counter {
            CoreMetrics.Counter(
                label: "sqlited_transaction_waits_total",
                dimensions: [("outcome", outcome)],
                factory: factory
            )
        }
        openWrite = gauge("write")
        openReadOnly = gauge("read_only")
        committed = ended("committed")
        rolledBack = ended("rolled_back")
        expired = ended("expired")
        waitsGranted = wait("granted")
        waitsBusy = wait("busy")
    }

    /// Records how many are open now.
    func recordOpen(_ counts: (open: Int, readOnly: Int)) {
        openWrite.record(counts.open - counts.readOnly)
        openReadOnly.record(counts.readOnly)
    }
}
