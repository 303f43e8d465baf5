import HTTPServer

extension SQLiteService {
    /// The fields of every console response: the page runs only its own files (no inline script or style, nothing
    /// from another origin), in no frame, and no file is taken for another type than the one it is sent as.
    ///
    /// Related documentation: <https://www.w3.org/TR/CSP3/>,
    /// <https://fetch.spec.whatwg.org/#x-content-type-options-header>
    static let consoleSecurityFields: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// `GET /ui` (the page) and `GET /ui/{asset}`: the embedded file with its entity tag, or 304 when the client's
    /// `If-None-Match` names it. `Cache-Control: no-cache` makes the browser ask each time (a cheap 304), so that a
    /// new binary's console is never mixed with an old one's cached modules. `/ui/` redirects to `/ui`.
    func consoleAssetResponse(_ request: HTTPRequest) -> HTTPResponse {
        let name: String
        if request.path == "/ui" {
            name = "index.html"
        } else if request.path == "/ui/" {
            return Self.consoleRedirect(to: "/ui")
        } else {
            name = String(request.path.dropFirst("/ui/".count))
        }
        guard let asset = ConsoleAsset.byName[name] else {
            return Self.errorResponse(Self.noEndpoint(request))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: asset.contentType)
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "ETag", value: asset.etag)
        for (name, value) in Self.consoleSecurityFields { headers.add(name: name, value: value) }
        if let tags = request.headers["if-none-match"], Self.matches(tags, asset.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(asset.bytes))
    }

    /// `GET /`: a redirect to the console.
    func consoleRedirect(_ request: HTTPRequest) -> HTTPResponse {
        Self.consoleRedirect(to: "/ui")
    }

    private static func consoleRedirect(to location: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Location", value: location)
        headers.add(name: "Cache-Control", value: "no-cache")
        for (name, value) in consoleSecurityFields { headers.add(name: name, value: value) }
        return HTTPResponse(status: HTTPStatus(code: 302), headers: headers)
    }

    /// Whether an `If-None-Match` field value names `etag` (a list of tags, or `*`; weak comparison, RFC 9110
    /// §13.1.2).
    static func matches(_ field: String, _ etag: String) -> Bool {
        field.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingWhitespace()
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
