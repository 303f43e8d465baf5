/// Resource limits of the server; past a limit the client gets an error status, never a hang.
///
/// Defaults follow the API contract (`API.md`, "Limits").
public struct HTTPLimits: Sendable, Hashable {
    /// Largest request body, in bytes (413 beyond it, decided from `Content-Length` before reading the body).
    public var maxBodySize: Int = 10 * 1024 * 1024
    /// Largest request head (request line and header fields, with their line endings), in bytes (431 beyond it).
    public var maxHeadSize: Int = 16 * 1024
    /// Most header fields in a request head, and most trailer fields (431 beyond it).
    public var maxHeaderCount: Int = 100
    /// Longest request target, in bytes (414 beyond it).
    public var maxTargetLength: Int = 8 * 1024
    /// Longest chunk-size line of a chunked body, extensions included (400 beyond it).
    public var maxChunkLineLength: Int = 4 * 1024
    /// Time allowed for a whole request head, from its first byte (408 after it). An absolute deadline, so a client
    /// sending one byte at a time cannot hold the connection (slowloris).
    public var headTimeout: Duration = .seconds(10)
    /// Longest pause while receiving a request body (408 after it).
    public var bodyInactivityTimeout: Duration = .seconds(10)
    /// How long an idle keep-alive connection stays open; then it is closed without a response.
    public var idleTimeout: Duration = .seconds(60)
    /// Longest time without any progress in sending a response to a client that does not read; then the
    /// connection is closed.
    public var sendTimeout: Duration = .seconds(60)
    /// Longest time a streamed response's client may read nothing while output waits for it; then its connection is
    /// closed (HTTP/2: its stream reset) and the producer's next write fails, so a stalled client holds its producer
    /// (and whatever that holds: a database reader) no longer than this. Replaces ``sendTimeout`` while a body
    /// streams.
    public var streamStallTimeout: Duration = .seconds(30)
    /// Bound on the bytes of one streamed HTTP/2 response waiting in the server for the client's flow-control window
    /// (its producer's writer blocks above it); HTTP/1.1 bounds a stream by ``maxPendingOutput``.
    public var maxStreamBuffer: Int = 64 * 1024
    /// Most open client connections; a connection beyond it gets 503 and is closed at once.
    public var maxConnections: Int = 1024
    /// Listen backlog passed to `listen(2)`.
    public var listenBacklog: Int32 = 511
    /// Bound on a connection's unsent output: above it the server stops reading that client's next requests, and a
    /// streamed body's writer blocks until the client has read enough.
    public var maxPendingOutput: Int = 256 * 1024
    /// HTTP/2 (h2c): whether it is served, and its own limits.
    public var http2 = HTTP2Settings()

    /// The contract's defaults.
    public init() {}
}
