/// An HTTP response produced by a handler.
///
/// The server owns the framing: it sets `Content-Length` or `Transfer-Encoding: chunked`, `Connection`,
/// `Date` and `Server`, and drops any such field the handler set (RFC 9112 §6).
public struct HTTPResponse: Sendable {
    /// The status line's code and reason phrase.
    public var status: HTTPStatus
    /// Header fields set by the handler.
    public var headers: HTTPHeaders
    /// The content.
    public var body: Body

    /// The content of a response.
    public enum Body: Sendable {
        /// Content known up front, sent with `Content-Length`.
        case bytes([UInt8])
        /// Content produced incrementally on the handler's thread, sent with `Transfer-Encoding: chunked`
        /// (or, to an HTTP/1.0 client, delimited by closing the connection).
        case stream(@Sendable (HTTPBodyWriter) throws -> Void)
    }

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
