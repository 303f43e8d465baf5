extension HTTPRequest {
    /// The request an HTTP/2 stream carries, checked as the HTTP/1.1 parser checks a request line and head (the
    /// same statuses: 400 for a malformed target, 414 for a long one), so that a handler sees the same value from
    /// either protocol. libnghttp2 has already enforced RFC 9113 §8.3 (the required pseudo-header fields, once
    /// each, before the others; no connection-specific field).
    ///
    /// `:authority` stands in for `Host` (RFC 9113 §8.3.1) when the client sent no `host` field.
    static func fromHTTP2(
        headers fields: [(name: String, value: String)],
        body: [UInt8],
        limits: HTTPLimits,
        remoteAddress: String?
    ) throws(RequestParser.Rejection) -> HTTPRequest {
        var cache = HTTP2RequestCache()
        return try fromHTTP2(
            head: HTTP2RequestHead(fields),
            body: body,
            limits: limits,
            remoteAddress: remoteAddress,
            cache: &cache
        )
    }

    /// The request of a stream whose header section the session gathered in `head`; `cache` keeps what the
    /// connection's previous requests had checked (the same authority and target are not checked again).
    static func fromHTTP2(
        head: HTTP2RequestHead,
        body: [UInt8],
        limits: HTTPLimits,
        remoteAddress: String?,
        cache: inout HTTP2RequestCache
    ) throws(RequestParser.Rejection) -> HTTPRequest {
        if head.serial != 0, let known = cache.request, known.serial == head.serial {
            var request = known.request
            request.body = body
            return request
        }
        var request = try newRequest(head: head, limits: limits, remoteAddress: remoteAddress, cache: &cache)
        if head.serial != 0 { cache.request = (head.serial, request) }
        request.body = body
        return request
    }

    /// The request of `head`, checked and decoded, without a body.
    private static func newRequest(
        head: HTTP2RequestHead,
        limits: HTTPLimits,
        remoteAddress: String?,
        cache: inout HTTP2RequestCache
    ) throws(RequestParser.Rejection) -> HTTPRequest {
        guard let method = head.method, !method.isEmpty, method.utf8.allSatisfy(ASCII.isTokenCharacter) else {
            throw .badRequest("invalid :method")
        }
        guard let target = head.path, !target.isEmpty else {
            throw .badRequest("missing :path (CONNECT is not served)")
        }
        if target.utf8.count > limits.maxTargetLength { throw .uriTooLong(limit: limits.maxTargetLength) }
        if let authority = head.authority, !(cache.validAuthority?.hasSameBytes(as: authority) ?? false) {
            guard HostSyntax.isValid(authority.utf8, allowingEmpty: false) else {
                throw .badRequest("invalid :authority")
            }
            cache.validAuthority = authority
        }
        if let host = head.host, !HostSyntax.isValid(host.utf8, allowingEmpty: true) {
            throw .badRequest("invalid host header field")
        }
        // The asterisk-form depends on the method, so it is checked for every request, remembered target or not.
        if target == "*" && method != "OPTIONS" {
            throw .badRequest("asterisk-form :path is only allowed for OPTIONS")
        }
        let decoded: DecodedTarget
        if let recent = cache.target.recent(target) {
            decoded = recent
        } else {
            guard target.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "#") }) else {
                throw .badRequest("invalid character in :path")
            }
            guard target == "*" || target.utf8.first == UInt8(ascii: "/") else {
                throw .badRequest(":path must start with \"/\"")
            }
            decoded = try cache.target.decode(target)
        }
        var request = HTTPRequest(method: method, target: "/", version: .http2, remoteAddress: remoteAddress)
        request.target = target
        request.rawPath = decoded.rawPath
        request.path = decoded.path
        request.query = decoded.query
        request.headers = head.headers
        request.keepAlive = true
        return request
    }
}
