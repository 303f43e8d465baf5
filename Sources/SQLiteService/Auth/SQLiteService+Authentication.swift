import HTTPServer

extension SQLiteService {
    /// Replaces the accepted bearer tokens; requests that start afterwards use the new set.
    ///
    /// `nil` or an empty store turns authentication off: every endpoint is open (the daemon then refuses a
    /// non-loopback listen address unless told otherwise, see ``isLoopback(host:)``). Safe to call while requests
    /// run, for instance on `SIGHUP`.
    public func setTokens(_ store: TokenStore?) {
        let active = store.flatMap { $0.isEmpty ? nil : $0 }
        updateSettings { $0.with(tokens: .some(active)) }
    }

    /// Whether requests must carry a bearer token.
    public var requiresAuthentication: Bool {
        settings.tokens != nil
    }

    /// The role a request to `path` with `method` requires, or nil for an endpoint open to everyone (`/health`):
    /// the route table's (``RouteTable/requiredRole(_:method:path:)``).
    static func requiredRole(forPath path: String, method: String = "GET") -> TokenRole? {
        RouteTable.requiredRole(ServiceEndpoint(path: path), method: method, path: path)
    }

    /// Checks the request's credentials before it is routed, and returns the authenticated token's name (nil when
    /// authentication is off or the endpoint is open).
    ///
    /// - Throws: 400 `INVALID_REQUEST` for a credential in the query string (always, tokens configured or not:
    ///   query strings end up in proxy and access logs and browser history, RFC 6750 §5.3); 401 `UNAUTHORIZED` with
    ///   `WWW-Authenticate: Bearer` for a missing, malformed or unknown token (RFC 6750 §3); 403 `FORBIDDEN` when
    ///   the token's role lacks the endpoint's permission.
    func authenticate(
        _ request: HTTPRequest,
        endpoint: ServiceEndpoint,
        tokens: TokenStore?
    ) throws(APIError) -> String? {
        if let name = request.query.first(where: { Self.looksLikeCredential($0.name) })?.name {
            throw .invalidRequest(
                "credentials are not accepted in the query string (query parameter \"\(String(name.prefix(32)))\"); "
                    + "send the token in an Authorization: Bearer header"
            )
        }
        guard let store = tokens else { return nil }
        guard let required = RouteTable.requiredRole(endpoint, method: request.method, path: request.path) else {
            return nil
        }

        let fields = request.headers.values(for: "Authorization")
        guard !fields.isEmpty else { throw .unauthorized("a bearer token is required (Authorization: Bearer TOKEN)") }
        guard fields.count == 1, let token = Self.bearerToken(fields[0]) else {
            throw .unauthorized("the Authorization header must be a single \"Bearer TOKEN\"")
        }
        guard let entry = store.authenticate(token: token) else { throw .unauthorized("unknown token") }
        guard entry.role.grants(required) else {
            throw .forbidden(
                "the token's role (\(entry.role.rawValue)) does not grant \(request.path) "
                    + "(needs \(required.rawValue))"
            )
        }
        return entry.name
    }

    /// The token of an `Authorization: Bearer TOKEN` field value (RFC 6750 §2.1), or nil for another scheme or a
    /// malformed value. The scheme is case-insensitive (RFC 9110 §11.1).
    static func bearerToken(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count > 7 else { return nil }
        guard String(decoding: bytes[0..<6], as: UTF8.self).lowercased() == "bearer", bytes[6] == 0x20 else {
            return nil
        }
        var start = 7
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard end > start else { return nil }
        let token = bytes[start..<end]
        // b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" — no space inside.
        guard token.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    /// Whether a query parameter name looks like it carries a credential (`token`, `access_token`, `auth`,
    /// `Authorization`, `api_key`, `password`, …), compared without case, `-` or `_`.
    static func looksLikeCredential(_ name: String) -> Bool {
        let folded = String(name.lowercased().filter { $0 != "_" && $0 != "-" })
        return ["token", "auth", "bearer", "apikey", "password", "passwd", "secret", "credential", "session"]
            .contains { folded.contains($0) }
    }
}
