/// Answers requests.
///
/// The server first offers each request to ``handleOnEventLoop(_:)`` on the connection's event loop thread, where
/// answering costs no thread hand-off. A handler answers there only what it can answer quickly without blocking;
/// returning nil offers it to ``handleDeferred(_:respond:)``, which may take it to answer later without a thread
/// waiting for it; otherwise ``handle(_:)`` answers it on one of the server's handler threads, which may block (at
/// most `handlerThreadCount` requests are handled there at once). Requests of one HTTP/1.1 connection are handled
/// one at a time, in order.
public protocol HTTPHandler: Sendable {
    /// Produces the response to `request`, on a handler thread; may block.
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// Produces the response to `request` on the event loop, or nil to have ``handle(_:)`` produce it on a handler
    /// thread.
    ///
    /// Every other connection of the same event loop waits while this runs: return a response only when it costs
    /// about as little as parsing the request did (a fixed answer, a point lookup), never after waiting for a lock,
    /// a database connection or I/O. A handler that gives up part way must leave no trace, since ``handle(_:)``
    /// then answers the same request from the start. The default answers nothing here.
    func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse?

    /// Takes `request` on the event loop, to answer it later by calling `respond` exactly once, from any thread;
    /// false leaves it to ``handle(_:)``.
    ///
    /// For a request whose answer waits on work the handler does elsewhere in batches (a write waiting for its
    /// group's commit): no thread blocks per request, and one thread can finish many requests at once. Called after
    /// ``handleOnEventLoop(_:)`` gave nil, under the same rule: it runs on the event loop, so it must return at once.
    /// The default takes nothing.
    func handleDeferred(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool

    /// The response to a request the server refused itself (``HTTPRejection``: malformed HTTP, a limit, no room for
    /// another connection), on the event loop, so it must return at once. The server keeps the rejection's status,
    /// adds the framing fields (and `Retry-After` to a refused connection), and closes the connection after it
    /// (HTTP/1.1) or ends the stream (HTTP/2). The default is ``HTTPRejection/plainTextResponse``.
    func response(to rejection: HTTPRejection) -> HTTPResponse
}

extension HTTPHandler {
    public func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        nil
    }

    public func handleDeferred(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        false
    }

    public func response(to rejection: HTTPRejection) -> HTTPResponse {
        rejection.plainTextResponse
    }
}

/// A handler made from a closure.
public struct ClosureHTTPHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse
    private let inline: (@Sendable (HTTPRequest) -> HTTPResponse?)?

    /// Creates a handler that calls `body` for every request, on a handler thread.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
        self.inline = nil
    }

    /// Creates a handler that offers every request to `inline` on the event loop first, and calls `body` on a
    /// handler thread for those `inline` returns nil for.
    public init(
        onEventLoop inline: @escaping @Sendable (HTTPRequest) -> HTTPResponse?,
        _ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        self.body = body
        self.inline = inline
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        body(request)
    }

    public func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        inline?(request)
    }
}
