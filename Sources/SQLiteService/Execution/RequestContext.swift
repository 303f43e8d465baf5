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

    /// Throws `TIMEOUT` once the deadline has passed: SQLite's progress
    /// handler only looks at the clock every so many instructions, so a short
    /// statement started after the deadline could otherwise still run.
    func checkDeadline() throws(APIError) {
        if ContinuousClock.now >= deadline {
            throw .timeout("the statement time limit was reached")
        }
    }
}
