import CoreMetrics
import Prometheus

/// The maintenance series of ``ServiceMetrics``.
///
/// | name | type | labels | meaning |
/// |---|---|---|---|
/// | `sqlited_checkpoints_total` | counter | `trigger` (`request`, `automatic`), `result` (`ok`, `busy`, `error`) | WAL checkpoints run |
/// | `sqlited_checkpoint_frames_total` | counter | `trigger` | WAL frames copied into the database by them |
/// | `sqlited_optimize_total` | counter | `trigger` (`request`, `interval`, `close`) | `PRAGMA optimize` runs |
/// | `sqlited_vacuum_total` | counter | | `VACUUM` runs |
struct MaintenanceMetrics: Sendable {
    private let factory: PrometheusMetricsFactory

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
        // Created up front, so that the series are exported (at 0) before anything happened.
        for trigger in ["request", "automatic"] {
            for result in ["ok", "busy", "error"] { _ = checkpoints(trigger: trigger, result: result) }
            _ = checkpointFrames(trigger: trigger)
        }
        for trigger in ["request", "interval", "close"] { _ = optimizeRuns(trigger: trigger) }
        _ = vacuumRuns
    }

    func recordCheckpoint(_ result: DatabaseMaintenance.CheckpointResult, trigger: String) {
        checkpoints(trigger: trigger, result: "ok").increment()
        checkpointFrames(trigger: trigger).increment(by: Int64(max(0, result.checkpointedFrames)))
    }

    func recordCheckpointBusy(trigger: String) {
        checkpoints(trigger: trigger, result: "busy").increment()
    }

    func recordCheckpointError(trigger: String) {
        checkpoints(trigger: trigger, result: "error").increment()
    }

    func recordOptimize(trigger: String) {
        optimizeRuns(trigger: trigger).increment()
    }

    func recordVacuum() {
        vacuumRuns.increment()
    }

    // The factory hands back the same series for the same label and dimensions, so these are cheap to ask again
    // (maintenance runs rarely; nothing here is on a request's path).
    private func checkpoints(trigger: String, result: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "sqlited_checkpoints_total",
            dimensions: [("trigger", trigger), ("result", result)],
            factory: factory
        )
    }

    private func checkpointFrames(trigger: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "sqlited_checkpoint_frames_total",
            dimensions: [("trigger", trigger)],
            factory: factory
        )
    }

    private func optimizeRuns(trigger: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "sqlited_optimize_total", dimensions: [("trigger", trigger)], factory: factory)
    }

    private var vacuumRuns: CoreMetrics.Counter {
        CoreMetrics.Counter(label: "sqlited_vacuum_total", factory: factory)
    }
}
