/// The HTTP/2 (h2c) side of the server: whether it is served, and the limits it announces and enforces.
///
/// The limits shared with HTTP/1.1 come from ``HTTPLimits`` itself: a stream's header list is bounded by
/// ``HTTPLimits/maxHeadSize`` and ``HTTPLimits/maxHeaderCount`` (431), its body by ``HTTPLimits/maxBodySize`` (413),
/// its target by ``HTTPLimits/maxTargetLength`` (414); a stream whose body stalls gets 408 after
/// ``HTTPLimits/bodyInactivityTimeout``; a connection without streams is closed (GOAWAY first) after
/// ``HTTPLimits/idleTimeout``; its unsent output is bounded by ``HTTPLimits/maxPendingOutput``.
public struct HTTP2Settings: Sendable, Hashable {
    /// Serve HTTP/2: a connection opening with the client preface (prior knowledge) and an HTTP/1.1 request with
    /// `Upgrade: h2c`. When false the preface is an invalid HTTP/1.1 request (400) and `Upgrade` is ignored.
    public var enabled = true
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`: streams a client may have open at once on one connection; a stream
    /// past it is refused (`RST_STREAM` `REFUSED_STREAM`).
    public var maxConcurrentStreams = 100
    /// Streams of one connection answered on handler threads at once; the connection's other such streams wait, in
    /// order (answers given on the event loop do not count). HTTP/1.1 has one request in flight per connection;
    /// without this one HTTP/2 client with 100 slow streams could hold every handler thread.
    public var maxStreamsOnHandlerThreads = 8
    /// `SETTINGS_INITIAL_WINDOW_SIZE`: bytes of request body a client may send on a stream before the server
    /// acknowledges them; also the connection's window. At most 2³¹ − 1.
    public var initialWindowSize = 1024 * 1024
    /// Control frames (PING, SETTINGS, WINDOW_UPDATE, PRIORITY, RST_STREAM, empty DATA) a connection may send in a
    /// burst; the budget refills at ``controlFrameRate`` per second and with every request served. Past it the
    /// connection gets GOAWAY `ENHANCE_YOUR_CALM` and is closed.
    public var controlFrameBurst = 1000
    /// Refill rate of the control frame budget, per second.
    public var controlFrameRate = 100
    /// Streams a client may reset before the server has answered them, in a burst (rapid reset, CVE-2023-44487);
    /// the budget refills at ``resetRate`` per second. Past it: GOAWAY `ENHANCE_YOUR_CALM`.
    public var resetBurst = 200
    /// Refill rate of the reset budget, per second.
    public var resetRate = 20

    /// The defaults.
    public init() {}
}
