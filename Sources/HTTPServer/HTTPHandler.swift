/// Answers requests.
///
/// `handle(_:)` runs on one of the server's handler threads, off the connections' I/O queues, so a slow handler
/// never delays other connections' I/O; it may block (at most `handlerThreadCount` requests are handled at once).
/// Requests of one connection are handled one at a time, in order.
public protocol HTTPHandler: Sendable {
    /// Produces the response to `request`.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}

/// A handler made from a closure.
public struct ClosureHTTPHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse

    /// Creates a handler that calls `body` for every request.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        body(request)
    }
}
