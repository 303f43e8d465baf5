/// A complete HTTP request, as parsed from the wire.
///
/// A value type whose fields live in one shared, copy-on-write box: a request passes through several hands on its
/// way to the handler (parser, connection, handler), and copying a dozen reference-counted fields at each step was
/// a measurable share of a small request's cost.
public struct HTTPRequest: Sendable {
    /// The fields. `@unchecked Sendable`: a box is mutated only while uniquely referenced (`mutableStorage`), so a
    /// box reachable from two values, or two threads, is never written.
    private final class Storage: @unchecked Sendable {
        var method: String
        var target: String
        var path: String
        var rawPath: String
        var query: [(name: String, value: String)]
        var version: HTTPVersion
        var headers: HTTPHeaders
        var trailers: HTTPHeaders
        var body: [UInt8]
        var remoteAddress: String?
        var keepAlive: Bool

        init(
            method: String,
            target: String,
            path: String,
            rawPath: String,
            query: [(name: String, value: String)],
            version: HTTPVersion,
            headers: HTTPHeaders,
            trailers: HTTPHeaders,
            body: [UInt8],
            remoteAddress: String?,
            keepAlive: Bool
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.rawPath = rawPath
            self.query = query
            self.version = version
            self.headers = headers
            self.trailers = trailers
            self.body = body
            self.remoteAddress = remoteAddress
            self.keepAlive = keepAlive
        }

        func copy() -> Storage {
            Storage(
                method: method,
                target: target,
                path: path,
                rawPath: rawPath,
                query: query,
                version: version,
                headers: headers,
                trailers: trailers,
                body: body,
                remoteAddress: remoteAddress,
                keepAlive: keepAlive
            )
        }
    }

    private var storage: Storage

    private mutating func mutableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
        return storage
    }

    /// The method token as sent (case-sensitive, RFC 9110 §9.1).
    public var method: String {
        get { storage.method }
        set { mutableStorage().method = newValue }
    }
    /// The request target in origin-form (`/path?query`; an absolute-form target is given as its origin-form) or `*`
    /// for `OPTIONS`.
    public var target: String {
        get { storage.target }
        set { mutableStorage().target = newValue }
    }
    /// The percent-decoded path.
    public var path: String {
        get { storage.path }
        set { mutableStorage().path = newValue }
    }
    /// The path as sent, before percent-decoding.
    public var rawPath: String {
        get { storage.rawPath }
        set { mutableStorage().rawPath = newValue }
    }
    /// The decoded query pairs, in order (`+` decodes to a space, as in HTML forms).
    public var query: [(name: String, value: String)] {
        get { storage.query }
        set { mutableStorage().query = newValue }
    }
    /// The protocol version (`HTTP/1.x` above 1.1 reads as 1.1).
    public var version: HTTPVersion {
        get { storage.version }
        set { mutableStorage().version = newValue }
    }
    /// The header fields.
    public var headers: HTTPHeaders {
        get { storage.headers }
        set { mutableStorage().headers = newValue }
    }
    /// The trailer fields of a chunked body (never merged into `headers`).
    public var trailers: HTTPHeaders {
        get { storage.trailers }
        set { mutableStorage().trailers = newValue }
    }
    /// The complete body, de-chunked.
    public var body: [UInt8] {
        get { storage.body }
        set { mutableStorage().body = newValue }
    }
    /// The peer's address (`"ip:port"`, `"[ipv6]:port"` or `"unix"`), when known.
    public var remoteAddress: String? {
        get { storage.remoteAddress }
        set { mutableStorage().remoteAddress = newValue }
    }
    /// Whether the connection stays open after this request (RFC 9112 §9.3).
    public var keepAlive: Bool {
        get { storage.keepAlive }
        set { mutableStorage().keepAlive = newValue }
    }

    /// Creates a request (mostly for tests; the server builds its requests from the wire).
    public init(
        method: String,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String? = nil
    ) {
        let parts = RequestTarget.split(target)
        storage = Storage(
            method: method,
            target: target,
            path: RequestTarget.percentDecode(parts.rawPath, plusAsSpace: false) ?? parts.rawPath,
            rawPath: parts.rawPath,
            query: parts.rawQuery.map { RequestTarget.decodeQuery($0) ?? [] } ?? [],
            version: version,
            headers: headers,
            trailers: HTTPHeaders(),
            body: body,
            remoteAddress: remoteAddress,
            keepAlive: version == .http1_1
        )
    }

    /// The value of the first query pair named `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

extension HTTPRequest {
    /// Decodes `%XX` escapes in a part of a path (`+` stays a plus); nil for an invalid escape, an encoded NUL or a
    /// result that is not UTF-8. For handlers that split ``rawPath`` into segments before decoding them, so that an
    /// encoded `/` or `,` stays inside its segment.
    public static func percentDecoded(_ text: some StringProtocol) -> String? {
        RequestTarget.percentDecode(text, plusAsSpace: false)
    }
}
