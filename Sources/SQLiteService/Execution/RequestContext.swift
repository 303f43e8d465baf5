/// What one request may do, after its options were capped by the server's limits.
struct RequestContext {
    /// Row shape in results.
    var shape: RequestOptions.Shape
    /// Send integers outside ±(2^53−1) as strings.
    var int64AsString: Bool
    /// Rows this response may still carry, across all its statements.
    var remainingRows: Int
    /// When the request's statements must have finished.
    var deadline: ContinuousClock.Instant
    /// When the context was made (the time `deadline` counts from), for deadlines of its own that callers derive
    /// without reading the clock again.
    let created: ContinuousClock.Instant
    /// Whether `SAVEPOINT`, `RELEASE` and `ROLLBACK TO` are allowed (only inside `/transaction`).
    var allowsSavepoints: Bool
    /// Whether statements must be read-only (`/query`).
    var requiresReadOnly: Bool
    /// The largest response body the request may build in memory.
    var maxResponseBytes: Int

    init(options: RequestOptions, limits: ServiceLimits, allowsSavepoints: Bool, requiresReadOnly: Bool) {
        self.shape = options.shape
        self.int64AsString = options.int64AsString
        self.remainingRows = min(options.maxRows ?? limits.maxRows, limits.maxRows)
        let timeout: Duration
        if let requested = options.timeoutMs {
            timeout = min(.milliseconds(requested), limits.statementTimeout)
        } else {
            timeout = limits.statementTimeout
        }
        created = .now
        deadline = created + timeout
        self.allowsSavepoints = allowsSavepoints
        self.requiresReadOnly = requiresReadOnly
        self.maxResponseBytes = limits.maxResponseBytes
    }

    /// The context of a streamed result (`../shared/API.md`, "Streaming results"): read-only, the rows-per-response
    /// limit left out (only the request's own `max_rows` counts), the time limit `limits.streamTimeout` (which the
    /// request's `timeout_ms` may lower) for the whole response, and the response size limit applied to one row (the
    /// stream's buffer is sent as it fills).
    init(streaming options: RequestOptions, limits: ServiceLimits) {
        self.init(options: options, limits: limits, allowsSavepoints: false, requiresReadOnly: true)
        remainingRows = options.maxRows ?? .max
        var timeout = limits.streamTimeout
        if let requested = options.timeoutMs { timeout = min(.milliseconds(requested), timeout) }
        deadline = created + timeout
    }

    /// Throws `TIMEOUT` once the deadline has passed: SQLite's progress
    /// handler only looks at the clock every so many instructions, so a short
    /// statement started after the deadline could otherwise still run.
    func checkDeadline() throws(APIError) {
        if ContinuousClock.now >= deadline {
            throw .timeout("the statement time limit was reached")
        }
    }
}
