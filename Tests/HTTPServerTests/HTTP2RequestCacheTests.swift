import Testing

@testable import HTTPServer

/// ``HTTP2RequestCache``: what a connection's last HTTP/2 requests had in common (`:authority`, target, the head's
/// serial), checked once and trusted only for the very same bytes.
@Suite struct HTTP2RequestCacheTests {
    /// The cache skips re-checking only what is the same: a new authority or target is checked and decoded
    /// again (an invalid one after valid ones is still refused), a repeated one gives the same request.
    @Test func requestCache_checksWhatChanged() throws {
        var cache = HTTP2RequestCache()
        func request(_ path: String, _ authority: String) throws(RequestParser.Rejection) -> HTTPRequest {
            try HTTPRequest.fromHTTP2(
                head: HTTP2RequestHead([(":method", "GET"), (":path", path), (":authority", authority)]),
                body: [],
                limits: HTTPLimits(),
                remoteAddress: nil,
                cache: &cache
            )
        }
        let first = try request("/tables/a%20b/rows?x=1&y=%C3%A9", "a.example")
        let again = try request("/tables/a%20b/rows?x=1&y=%C3%A9", "a.example")
        for decoded in [first, again] {
            #expect(decoded.path == "/tables/a b/rows")
            #expect(decoded.rawPath == "/tables/a%20b/rows")
            #expect(decoded.query.map(\.name) == ["x", "y"] && decoded.query.map(\.value) == ["1", "é"])
        }
        let other = try request("/query", "a.example")
        #expect(other.path == "/query" && other.query.isEmpty)
        #expect(throws: RequestParser.Rejection.self) { try request("/query", "bad host") }
        #expect(throws: RequestParser.Rejection.self) { try request("/a%zz", "a.example") }
        #expect(throws: RequestParser.Rejection.self) { try request("query", "a.example") }
        #expect(throws: RequestParser.Rejection.self) { try request("*", "a.example") }
        #expect(try request("/query", "b.example:8080").headers["host"] == "b.example:8080")
        // Remembered checks compare bytes: strings Swift calls equal (U+212A KELVIN SIGN == "K") are checked again.
        _ = try request("/K", "K.example")
        #expect(throws: RequestParser.Rejection.self) { try request("/K", "\u{212A}.example") }
        #expect(throws: RequestParser.Rejection.self) { try request("/\u{212A}", "K.example") }
    }

    /// `*` is allowed for OPTIONS only, whatever the connection decoded before: a remembered `*` does not let a GET
    /// through.
    @Test func requestCache_asteriskFormDependsOnTheMethodEveryTime() throws {
        var cache = HTTP2RequestCache()
        func request(_ method: String) throws(RequestParser.Rejection) -> HTTPRequest {
            try HTTPRequest.fromHTTP2(
                head: HTTP2RequestHead([(":method", method), (":path", "*"), (":authority", "a.example")]),
                body: [],
                limits: HTTPLimits(),
                remoteAddress: nil,
                cache: &cache
            )
        }
        let options = try request("OPTIONS")
        #expect(options.path == "*" && options.rawPath == "*" && options.query.isEmpty)
        #expect(throws: RequestParser.Rejection.self) { try request("GET") }
        #expect(try request("OPTIONS").path == "*")
    }
}
