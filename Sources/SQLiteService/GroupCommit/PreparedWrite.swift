import HTTPServer
import SQLiteEngine

/// A write request decoded and checked, ready for the writer: what it does there, answered with its response.
///
/// The same value runs on a handler thread that waits for its group (``SQLiteService/run(_:metrics:)``) or is
/// queued from the event loop without any thread waiting (``SQLiteService/handleDeferred(_:respond:)``), so a
/// request's work and answer are written once for both. `work` may run more than once in a group (see
/// ``GroupCommitter``): it keeps no state between runs.
struct PreparedWrite {
    /// When the request's time limit runs out; nil for none.
    var deadline: ContinuousClock.Instant?
    /// The size of the request's body, counted against the group's `max_bytes`.
    var bytes: Int
    /// Whether `work` is one transaction in autocommit mode (see ``GroupRequest/isOneTransaction``).
    var isOneTransaction = true
    var work: (Database) throws(APIError) -> HTTPResponse
    /// The request's hold on its `Idempotency-Key`, released just before its answer is sent.
    var claim: IdempotencyClaim?
}

extension SQLiteService {
    /// Runs `write` on the writer (in a group when group commit is on) and returns its response once it is durable.
    func run(_ write: PreparedWrite, metrics: ServiceMetrics?) throws(APIError) -> HTTPResponse {
        try onWriter(
            metrics: metrics,
            deadline: write.deadline,
            bytes: write.bytes,
            isOneTransaction: write.isOneTransaction,
            write.work
        )
    }
}
