/// Limits the service applies to every request, on top of the HTTP server's own.
///
/// Defaults follow the "Limits" section of the API contract. Per-request options
/// (`max_rows`, `timeout_ms`) may only lower them.
public struct ServiceLimits: Sendable, Hashable {
    /// Rows one response may carry; more are cut and the result says `truncated`.
    public var maxRows: Int = 100_000
    /// Time one request's statements may run, all statements together.
    public var statementTimeout: Duration = .seconds(5)
    /// Longest SQL text accepted (`SQLITE_LIMIT_SQL_LENGTH`).
    public var maxSQLLength: Int32 = 1_000_000
    /// Largest string or blob a statement may produce (`SQLITE_LIMIT_LENGTH`).
    public var maxValueLength: Int32 = 10 * 1024 * 1024
    /// Deepest expression tree (`SQLITE_LIMIT_EXPR_DEPTH`).
    public var maxExpressionDepth: Int32 = 1000
    /// Longest `LIKE`/`GLOB` pattern (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`, SQLite's default 50,000). Matching
    /// costs up to value length × pattern length inside one uninterruptible call: 10 MiB × 100 bytes took 4–5 s
    /// on SQLite 3.40.1, 10 MiB × 50,000 would take about half an hour.
    public var maxLikePatternLength: Int32 = 100
    /// Most parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    public var maxParameters: Int32 = 32_766
    /// Largest response body one request may build (responses are built in memory): past it the request fails
    /// with 400 `SQLITE_TOOBIG`. Without it, `SELECT zeroblob(10000000), …` with 2,000 columns, or many rows of
    /// them, would build gigabytes within the time limit.
    public var maxResponseBytes: Int = 64 * 1024 * 1024
    /// Time one streamed response (NDJSON, CSV) may take, from the request to its last byte; past it NDJSON ends
    /// with a `TIMEOUT` error line and CSV is cut. A request's `timeout_ms` may lower it.
    public var streamTimeout: Duration = .seconds(300)
    /// Most parameter sets in one `params_batch`.
    public var maxBatchSize: Int = 100_000
    /// Most statements in one `/batch` or `/transaction` request.
    public var maxStatements: Int = 10_000
    /// How long a write waits for the writer while an interactive transaction holds it (`database.busy_timeout_ms`):
    /// then 503 `SQLITE_BUSY` with `Retry-After`; so does opening a second write transaction.
    public var writerWaitTimeout: Duration = .seconds(5)
    /// The longest idle time an interactive transaction may ask for (`limits.transaction_idle_timeout_ms`); a larger
    /// `idle_timeout_ms` is lowered to it.
    public var transactionIdleTimeout: Duration = .seconds(10)
    /// How long an interactive transaction may stay open, however busy (`limits.transaction_max_lifetime_ms`).
    public var transactionMaxLifetime: Duration = .seconds(60)
    /// Most `read_only` interactive transactions open at once (`limits.max_read_transactions`; the daemon's default
    /// is half of `database.readers`, at least 1): each holds one reader.
    public var maxReadTransactions: Int = 2

    public init() {}
}
