/// A complete HTTP request, as parsed from the wire.
public struct HTTPRequest: Sendable {
    /// The method token as sent (case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request target as sent: origin-form (`/path?query`) or `*` for `OPTIONS`.
    public var target: String
    /// The percent-decoded path.
    public var path: String
    /// The path as sent, before percent-decoding.
    public var rawPath: String
    /// The decoded query pairs, in order (`+` decodes to a space, as in HTML forms).
    public var query: [(name: String, value: String)]
    /// The protocol version (`HTTP/1.x` above 1.1 reads as 1.1).
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders
    /// The trailer fields of a chunked body (never merged into `headers`).
    public var trailers: HTTPHeaders
    /// The complete body, de-chunked.
    public var body: [UInt8]
    /// The peer's address (`"ip:port"`, `"[ipv6]:port"` or `"unix"`), when known.
    public var remoteAddress: String?
    /// Whether the connection stays open after this request (RFC 9112 §9.3).
    public var keepAlive: Bool

    /// Creates a request (mostly for tests; the server builds its requests from the wire).
    public init(
        method: String,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        let parts = RequestTarget.split(target)
        self.rawPath = parts.rawPath
        self.path = RequestTarget.percentDecode(parts.rawPath, plusAsSpace: false) ?? parts.rawPath
        self.query = parts.rawQuery.map { RequestTarget.decodeQuery($0) ?? [] } ?? []
        self.version = version
        self.headers = headers
        self.trailers = HTTPHeaders()
        self.body = body
        self.remoteAddress = remoteAddress
        self.keepAlive = version == .http1_1
    }

    /// The value of the first query pair named `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
