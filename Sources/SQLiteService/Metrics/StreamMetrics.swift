import CoreMetrics
import Prometheus

/// The series of streamed responses (NDJSON, CSV):
///
/// | name | type | meaning |
/// |---|---|---|
/// | `sqlited_streams_open` | gauge | streamed responses being sent now |
/// | `sqlited_stream_readers_held` | gauge | readers of the local pool held by streams now |
/// | `sqlited_stream_rows_total` | counter | rows sent in streamed responses |
/// | `sqlited_stream_stalls_total` | counter | streams cut because their client stopped reading |
struct StreamMetrics: Sendable {
    let open: CoreMetrics.Gauge
    let readersHeld: CoreMetrics.Gauge
    let rows: CoreMetrics.Counter
    let stallsCut: CoreMetrics.Counter

    init(factory: PrometheusMetricsFactory) {
        open = CoreMetrics.Gauge(label: "sqlited_streams_open", factory: factory)
        readersHeld = CoreMetrics.Gauge(label: "sqlited_stream_readers_held", factory: factory)
        rows = CoreMetrics.Counter(label: "sqlited_stream_rows_total", factory: factory)
        stallsCut = CoreMetrics.Counter(label: "sqlited_stream_stalls_total", factory: factory)
    }
}
