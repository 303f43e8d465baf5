import Testing

@testable import HTTPServer

/// What the parser reported for one input, in order.
enum ParserEvent: Equatable, Sendable, CustomStringConvertible {
    case sendContinue
    case request(RequestSummary)
    case reject(Int)

    var description: String {
        switch self {
        case .sendContinue: "100-continue"
        case .request(let summary): "request(\(summary))"
        case .reject(let status): "reject(\(status))"
        }
    }
}

/// The parts of a parsed request that the table checks.
struct RequestSummary: Equatable, Sendable, CustomStringConvertible {
    var method: String
    var path: String
    var body: String
    var keepAlive: Bool
    var version: HTTPVersion

    var description: String { "\(method) \(path) \(version) body=\(body.debugDescription) keepAlive=\(keepAlive)" }
}

/// One row of the parser table.
struct ParserCase: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: [UInt8]
    var expected: [ParserEvent]
    var limits: HTTPLimits

    init(_ name: String, _ raw: String, _ expected: [ParserEvent], limits: HTTPLimits = HTTPLimits()) {
        self.name = name
        self.raw = Array(raw.utf8)
        self.expected = expected
        self.limits = limits
    }

    init(_ name: String, bytes: [UInt8], _ expected: [ParserEvent], limits: HTTPLimits = HTTPLimits()) {
        self.name = name
        self.raw = bytes
        self.expected = expected
        self.limits = limits
    }

    var testDescription: String { name }
}

func ok(
    _ method: String = "GET",
    _ path: String = "/",
    body: String = "",
    keepAlive: Bool = true,
    version: HTTPVersion = .http1_1
) -> ParserEvent {
    .request(RequestSummary(method: method, path: path, body: body, keepAlive: keepAlive, version: version))
}

/// Feeds `chunks` one after the other, collecting every event until a rejection or the end of the input.
func parse(_ chunks: [ArraySlice<UInt8>], limits: HTTPLimits) -> [ParserEvent] {
    var parser = RequestParser(limits: limits)
    var events: [ParserEvent] = []
    for chunk in chunks {
        parser.feed(chunk)
        let goesOn = drain(&parser) { action in
            switch action {
            case .needMoreData: break
            case .send100Continue: events.append(.sendContinue)
            case .requestComplete(let request):
                events.append(
                    .request(
                        RequestSummary(
                            method: request.method,
                            path: request.path,
                            body: String(decoding: request.body, as: UTF8.self),
                            keepAlive: request.keepAlive,
                            version: request.version
                        )
                    )
                )
            case .reject(let rejection): events.append(.reject(rejection.status.code))
            }
        }
        if !goesOn { return events }
    }
    return events
}

/// Runs `parser` until it needs more data, handing each other action to `report`; false once it rejected.
func drain(_ parser: inout RequestParser, _ report: (RequestParser.Action) -> Void) -> Bool {
    while true {
        let action = parser.next()
        switch action {
        case .needMoreData:
            return true
        case .reject:
            report(action)
            return false
        case .send100Continue, .requestComplete:
            report(action)
        }
    }
}

private func limits(_ change: (inout HTTPLimits) -> Void) -> HTTPLimits {
    var limits = HTTPLimits()
    change(&limits)
    return limits
}

private let host = "Host: example.com\r\n"

let parserCases: [ParserCase] = [
    // Valid requests.
    ParserCase("simple GET", "GET / HTTP/1.1\r\n\(host)\r\n", [ok()]),
    ParserCase("decoded path and query", "GET /a%20b?x=1&y=%41+b HTTP/1.1\r\n\(host)\r\n", [ok("GET", "/a b")]),
    ParserCase("encoded slash decodes", "GET /a%2Fb HTTP/1.1\r\n\(host)\r\n", [ok("GET", "/a/b")]),
    ParserCase(
        "POST with Content-Length",
        "POST /q HTTP/1.1\r\n\(host)Content-Length: 5\r\n\r\nhello",
        [ok("POST", "/q", body: "hello")]
    ),
    ParserCase("Content-Length zero", "POST / HTTP/1.1\r\n\(host)Content-Length: 0\r\n\r\n", [ok("POST")]),
    ParserCase(
        "chunked body",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        [ok("POST", body: "hello world")]
    ),
    ParserCase(
        "chunk extensions",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5;a=b;c=\"d\"\r\nhello\r\n0;x\r\n\r\n",
        [ok("POST", body: "hello")]
    ),
    ParserCase(
        "chunk extension after BWS",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5 ;a=b\r\nhello\r\n0\r\n\r\n",
        [ok("POST", body: "hello")]
    ),
    ParserCase(
        "chunked with trailers",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n",
        [ok("POST", body: "abc")]
    ),
    ParserCase(
        "uppercase hex chunk size",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
        [ok("POST", body: "0123456789")]
    ),
    ParserCase(
        "chunk size with leading zeros",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0003\r\nabc\r\n000\r\n\r\n",
        [ok("POST", body: "abc")]
    ),
    ParserCase(
        "Transfer-Encoding is case-insensitive",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        [ok("POST", body: "x")]
    ),
    ParserCase(
        "tab before chunked is OWS",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding:\tchunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        [ok("POST", body: "x")]
    ),
    ParserCase("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", [ok(keepAlive: false, version: .http1_0)]),
    ParserCase(
        "HTTP/1.0 keep-alive",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        [ok(keepAlive: true, version: .http1_0)]
    ),
    ParserCase("Connection: close", "GET / HTTP/1.1\r\n\(host)Connection: close\r\n\r\n", [ok(keepAlive: false)]),
    ParserCase(
        "Connection token list, any case",
        "GET / HTTP/1.1\r\n\(host)Connection: Keep-Alive, CLOSE\r\n\r\n",
        [ok(keepAlive: false)]
    ),
    ParserCase("HTTP/1.2 served as 1.1", "GET / HTTP/1.2\r\n\(host)\r\n", [ok()]),
    ParserCase("empty lines before the request line", "\r\n\r\nGET / HTTP/1.1\r\n\(host)\r\n", [ok()]),
    ParserCase("OPTIONS asterisk-form", "OPTIONS * HTTP/1.1\r\n\(host)\r\n", [ok("OPTIONS", "*")]),
    ParserCase(
        "identical duplicate Content-Length",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 2\r\nContent-Length: 2\r\n\r\nab",
        [ok("POST", body: "ab")]
    ),
    ParserCase(
        "identical Content-Length list",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 2, 2\r\n\r\nab",
        [ok("POST", body: "ab")]
    ),
    ParserCase(
        "Content-Length leading zeros",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 002\r\n\r\nab",
        [ok("POST", body: "ab")]
    ),
    ParserCase(
        "Expect 100-continue with a body",
        "POST / HTTP/1.1\r\n\(host)Expect: 100-continue\r\nContent-Length: 2\r\n\r\nab",
        [.sendContinue, ok("POST", body: "ab")]
    ),
    ParserCase("Expect 100-continue without a body", "GET / HTTP/1.1\r\n\(host)Expect: 100-Continue\r\n\r\n", [ok()]),
    ParserCase(
        "Expect ignored on HTTP/1.0",
        "GET / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n",
        [ok(keepAlive: false, version: .http1_0)]
    ),
    ParserCase("UTF-8 in a header value", "GET / HTTP/1.1\r\n\(host)X-Name: café\r\n\r\n", [ok()]),
    ParserCase("empty header value", "GET / HTTP/1.1\r\n\(host)X-Empty:\r\n\r\n", [ok()]),
    ParserCase("methods are case-sensitive tokens", "get / HTTP/1.1\r\n\(host)\r\n", [ok("get")]),
    ParserCase(
        "pipelined requests",
        "GET /1 HTTP/1.1\r\n\(host)\r\nPOST /2 HTTP/1.1\r\n\(host)Content-Length: 1\r\n\r\nx"
            + "GET /3 HTTP/1.1\r\n\(host)\r\n",
        [ok("GET", "/1"), ok("POST", "/2", body: "x"), ok("GET", "/3")]
    ),
    // A keep-alive connection's repeated lines are taken as parsed before; any byte that differs is parsed again.
    ParserCase(
        "repeated lines, then a changed body length, target and field",
        "POST /q HTTP/1.1\r\n\(host)Content-Length: 1\r\nX-A: 1\r\n\r\na"
            + "POST /q HTTP/1.1\r\n\(host)Content-Length: 2\r\nX-A: 1\r\n\r\nbc"
            + "POST /r%20s HTTP/1.1\r\nX-A: 1\r\n\(host)Content-Length: 1\r\n\r\nd"
            + "GET /q HTTP/1.0\r\n\(host)\r\n",
        [
            ok("POST", "/q", body: "a"), ok("POST", "/q", body: "bc"), ok("POST", "/r s", body: "d"),
            ok("GET", "/q", keepAlive: false, version: .http1_0),
        ]
    ),
    ParserCase(
        "a remembered valid Host does not vouch for a canonically equal one (U+212A KELVIN SIGN)",
        "GET /q HTTP/1.1\r\nHost: K\r\n\r\nGET /q HTTP/1.1\r\nHost: \u{212A}\r\n\r\n",
        [ok("GET", "/q"), .reject(400)]
    ),
    ParserCase(
        "a repeated request, then an invalid Host",
        "GET /q HTTP/1.1\r\n\(host)\r\nGET /q HTTP/1.1\r\n\(host)\r\nGET /q HTTP/1.1\r\nHost: a b\r\n\r\n",
        [ok("GET", "/q"), ok("GET", "/q"), .reject(400)]
    ),
    ParserCase(
        "a repeated request, then a bad escape and a bad field at a known position",
        "GET /q HTTP/1.1\r\n\(host)X-A: 1\r\n\r\nGET /q%zz HTTP/1.1\r\n\(host)X-A: 1\r\n\r\n",
        [ok("GET", "/q"), .reject(400)]
    ),
    ParserCase(
        "a known field position with an invalid line",
        "GET /q HTTP/1.1\r\n\(host)X-A: 1\r\n\r\nGET /q HTTP/1.1\r\n\(host)X A: 1\r\n\r\n",
        [ok("GET", "/q"), .reject(400)]
    ),
    ParserCase("incomplete head waits", "GET / HTTP/1.1\r\n\(host)", []),
    ParserCase("incomplete body waits", "POST / HTTP/1.1\r\n\(host)Content-Length: 10\r\n\r\nabc", []),

    // Request smuggling shapes.
    ParserCase(
        "Content-Length with Transfer-Encoding",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunked, identity",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, identity\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunked then identity in two fields",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunked twice",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, chunked\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase("identity only", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: identity\r\n\r\n", [.reject(501)]),
    ParserCase("gzip, chunked", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n", [.reject(501)]),
    ParserCase("xchunked", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: xchunked\r\n\r\n", [.reject(501)]),
    ParserCase("space before colon", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding : chunked\r\n\r\n", [.reject(400)]),
    ParserCase("tab before colon", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding\t: chunked\r\n\r\n", [.reject(400)]),
    ParserCase(
        "obs-fold continuation",
        "POST / HTTP/1.1\r\n\(host)X-A: b\r\n Transfer-Encoding: chunked\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase("whitespace before first field", "GET / HTTP/1.1\r\n \(host)\r\n", [.reject(400)]),
    ParserCase(
        "Transfer-Encoding on HTTP/1.0",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "different duplicate Content-Length",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
        [.reject(400)]
    ),
    ParserCase(
        "different Content-Length list",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 2, 3\r\n\r\nabc",
        [.reject(400)]
    ),
    ParserCase(
        "Content-Length with plus sign",
        "POST / HTTP/1.1\r\n\(host)Content-Length: +5\r\n\r\nhello",
        [.reject(400)]
    ),
    ParserCase("negative Content-Length", "POST / HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n", [.reject(400)]),
    ParserCase("space inside Content-Length", "POST / HTTP/1.1\r\n\(host)Content-Length: 1 2\r\n\r\n", [.reject(400)]),
    ParserCase("empty Content-Length", "POST / HTTP/1.1\r\n\(host)Content-Length:\r\n\r\n", [.reject(400)]),
    ParserCase("hex Content-Length", "POST / HTTP/1.1\r\n\(host)Content-Length: 0x5\r\n\r\n", [.reject(400)]),
    ParserCase(
        "huge Content-Length",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999999999\r\n\r\n",
        [.reject(413)]
    ),
    ParserCase(
        "Content-Length over the limit",
        "POST / HTTP/1.1\r\n\(host)Content-Length: 11534336\r\n\r\n",
        [.reject(413)]
    ),
    // A size too large to represent is a framing error; one that parses and is only over the limit is 413.
    ParserCase(
        "chunk size overflow",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunk size of 21 hex digits",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n100000000000000000000\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunk size over 63 bits",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n8000000000000000\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "largest representable chunk size is over the limit",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFFF\r\n",
        [.reject(413)]
    ),
    ParserCase(
        "chunk size over the body limit",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n000FFFFFFF\r\n",
        [.reject(413)]
    ),
    ParserCase(
        "chunk size 0x prefix",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase("empty chunk size", "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n\r\n", [.reject(400)]),
    ParserCase(
        "chunk size with leading space",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "negative chunk size",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n-1\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunk data without CRLF",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunk data longer than its size",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunk line with bare LF",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
        [.reject(400)]
    ),
    ParserCase(
        "chunked body over the limit",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n",
        [.reject(413)],
        limits: limits { $0.maxBodySize = 8 }
    ),
    ParserCase(
        "chunk extension too long",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n"
            + "5;aaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\nhello\r\n0\r\n\r\n",
        [.reject(400)],
        limits: limits { $0.maxChunkLineLength = 16 }
    ),
    ParserCase(
        "invalid trailer field",
        "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n",
        [.reject(400)]
    ),

    // Request line.
    ParserCase("bare LF line endings", "GET / HTTP/1.1\nHost: a\n\n", [.reject(400)]),
    ParserCase("bare LF after a header", "GET / HTTP/1.1\r\nHost: a\n\r\n", [.reject(400)]),
    ParserCase("missing Host on HTTP/1.1", "GET / HTTP/1.1\r\n\r\n", [.reject(400)]),
    ParserCase("two Host fields", "GET / HTTP/1.1\r\n\(host)\(host)\r\n", [.reject(400)]),
    ParserCase("invalid Host value", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", [.reject(400)]),
    // Host = uri-host [ ":" port ] (RFC 9112 §3.2).
    ParserCase("Host with port", "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", [ok()]),
    ParserCase("Host IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n", [ok()]),
    ParserCase("Host IPv6 literal with port", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", [ok()]),
    ParserCase("Host percent-encoded", "GET / HTTP/1.1\r\nHost: ex%41mple.com\r\n\r\n", [ok()]),
    ParserCase("Host empty value", "GET / HTTP/1.1\r\nHost:\r\n\r\n", [ok()]),
    ParserCase("Host with two colons", "GET / HTTP/1.1\r\nHost: a:b:c\r\n\r\n", [.reject(400)]),
    ParserCase("Host port not digits", "GET / HTTP/1.1\r\nHost: example.com:80x\r\n\r\n", [.reject(400)]),
    ParserCase("Host empty port", "GET / HTTP/1.1\r\nHost: example.com:\r\n\r\n", [.reject(400)]),
    ParserCase("Host port out of range", "GET / HTTP/1.1\r\nHost: example.com:65536\r\n\r\n", [.reject(400)]),
    ParserCase("Host port only", "GET / HTTP/1.1\r\nHost: :8080\r\n\r\n", [.reject(400)]),
    ParserCase("Host bad IPv6 literal", "GET / HTTP/1.1\r\nHost: [zz]\r\n\r\n", [.reject(400)]),
    ParserCase("Host unclosed IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", [.reject(400)]),
    ParserCase("Host broken escape", "GET / HTTP/1.1\r\nHost: ex%4\r\n\r\n", [.reject(400)]),
    ParserCase("Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", [.reject(400)]),
    ParserCase("HTTP/2.0", "GET / HTTP/2.0\r\n\(host)\r\n", [.reject(505)]),
    ParserCase("HTTP/0.9 version", "GET / HTTP/0.9\r\n\(host)\r\n", [.reject(505)]),
    ParserCase("lowercase http/1.1", "GET / http/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("two-digit version", "GET / HTTP/11.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("missing version", "GET /\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("trailing space after version", "GET / HTTP/1.1 \r\n\(host)\r\n", [.reject(400)]),
    // Absolute-form targets (RFC 9112 §3.2.2): served as their origin-form; the authority is validated in place of
    // the Host field's value, which is ignored (the field itself is still required on HTTP/1.1).
    ParserCase("absolute-form target", "GET http://example.com/ HTTP/1.1\r\n\(host)\r\n", [ok()]),
    ParserCase(
        "absolute-form with path, query and port",
        "GET http://127.0.0.1:8080/health?x=1 HTTP/1.1\r\n\(host)\r\n",
        [ok("GET", "/health")]
    ),
    ParserCase("absolute-form without a path", "GET HTTP://Example.COM:80 HTTP/1.1\r\n\(host)\r\n", [ok()]),
    ParserCase("absolute-form with a query only", "GET http://h?q=1 HTTP/1.1\r\n\(host)\r\n", [ok()]),
    ParserCase("absolute-form https", "GET https://[::1]:8443/a%20b HTTP/1.1\r\n\(host)\r\n", [ok("GET", "/a b")]),
    ParserCase("absolute-form ignores the Host value", "GET http://h/ HTTP/1.1\r\nHost: a:b:c\r\n\r\n", [ok()]),
    ParserCase(
        "absolute-form on HTTP/1.0",
        "GET http://h/x HTTP/1.0\r\n\r\n",
        [ok("GET", "/x", keepAlive: false, version: .http1_0)]
    ),
    ParserCase("absolute-form without Host on 1.1", "GET http://example.com/ HTTP/1.1\r\n\r\n", [.reject(400)]),
    ParserCase("absolute-form other scheme", "GET ftp://example.com/ HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("absolute-form with userinfo", "GET http://u:p@example.com/ HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("absolute-form invalid authority", "GET http://a:b:c/ HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("absolute-form empty host", "GET http:///x HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("absolute-form without //", "GET http:/x HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("relative target without a slash", "GET example.com/ HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("space in target", "GET /a b HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("double space after method", "GET  / HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("tab as separator", "GET\t/ HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("invalid method character", "G(T / HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("fragment in target", "GET /a#b HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("asterisk-form with GET", "GET * HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("invalid percent escape", "GET /a%zz HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("truncated percent escape", "GET /a%4 HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("encoded NUL in path", "GET /a%00b HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("invalid UTF-8 in path", "GET /a%FF HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase("invalid escape in query", "GET /a?x=%G1 HTTP/1.1\r\n\(host)\r\n", [.reject(400)]),
    ParserCase(
        "target over the limit",
        "GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\(host)\r\n",
        [.reject(414)],
        limits: limits { $0.maxTargetLength = 16 }
    ),

    // Header fields.
    ParserCase("NUL in a header value", "GET / HTTP/1.1\r\n\(host)X-A: a\u{0}b\r\n\r\n", [.reject(400)]),
    ParserCase("CR inside a header value", "GET / HTTP/1.1\r\n\(host)X-A: a\rb\r\n\r\n", [.reject(400)]),
    ParserCase("header without colon", "GET / HTTP/1.1\r\n\(host)X-A\r\n\r\n", [.reject(400)]),
    ParserCase("empty header name", "GET / HTTP/1.1\r\n\(host): x\r\n\r\n", [.reject(400)]),
    ParserCase("invalid header name character", "GET / HTTP/1.1\r\n\(host)X@A: x\r\n\r\n", [.reject(400)]),
    ParserCase(
        "unsupported expectation",
        "POST / HTTP/1.1\r\n\(host)Expect: 200-ok\r\nContent-Length: 1\r\n\r\nx",
        [.reject(417)]
    ),
    ParserCase(
        "Expect 100-continue over the body limit",
        "POST / HTTP/1.1\r\n\(host)Expect: 100-continue\r\nContent-Length: 100\r\n\r\n",
        [.reject(413)],
        limits: limits { $0.maxBodySize = 10 }
    ),
    ParserCase(
        "too many header fields",
        "GET / HTTP/1.1\r\n\(host)A: 1\r\nB: 2\r\nC: 3\r\n\r\n",
        [.reject(431)],
        limits: limits { $0.maxHeaderCount = 3 }
    ),
    ParserCase(
        "head over the size limit",
        "GET / HTTP/1.1\r\n\(host)X-Long: \(String(repeating: "v", count: 100))\r\n\r\n",
        [.reject(431)],
        limits: limits { $0.maxHeadSize = 64 }
    ),
    ParserCase(
        "leading empty lines count toward the head limit",
        String(repeating: "\r\n", count: 40) + "GET / HTTP/1.1\r\n\(host)\r\n",
        [.reject(431)],
        limits: limits { $0.maxHeadSize = 64 }
    ),
    ParserCase("invalid byte in target", bytes: Array("GET /\u{7F} HTTP/1.1\r\n\(host)\r\n".utf8), [.reject(400)]),
    ParserCase(
        "request after a rejected one is not parsed",
        "GET / HTTP/2.0\r\n\(host)\r\nGET / HTTP/1.1\r\n\(host)\r\n",
        [.reject(505)]
    ),
]

@Suite struct RequestParserTests {
    /// The table is big enough to be meaningful.
    @Test func table_hasAtLeastFiftyCases() {
        #expect(parserCases.count >= 50)
    }

    /// Each input, fed whole, gives the expected events.
    @Test(arguments: parserCases)
    func parse_wholeInput(_ testCase: ParserCase) {
        #expect(parse([testCase.raw[...]], limits: testCase.limits) == testCase.expected)
    }

    /// Each input, split in two at every byte boundary, gives the same events as when fed whole.
    @Test(arguments: parserCases)
    func parse_splitAtEveryBoundary(_ testCase: ParserCase) {
        for split in 0...testCase.raw.count {
            let events = parse(
                [testCase.raw[..<split], testCase.raw[split...]],
                limits: testCase.limits
            )
            #expect(events == testCase.expected, "split at \(split)")
        }
    }

    /// Each input, fed one byte at a time, gives the same events as when fed whole.
    @Test(arguments: parserCases)
    func parse_oneByteAtATime(_ testCase: ParserCase) {
        let chunks = testCase.raw.indices.map { testCase.raw[$0...$0] }
        #expect(parse(chunks, limits: testCase.limits) == testCase.expected)
    }

    /// Headers, query pairs and the raw path of a parsed request are exposed as sent.
    @Test func parse_exposesHeadersQueryAndRawPath() throws {
        var parser = RequestParser(limits: HTTPLimits())
        parser.feed(
            Array("GET /a%20b?x=1&y=two+words&flag HTTP/1.1\r\nHost: h\r\nX-Multi: 1\r\nx-multi: 2\r\n\r\n".utf8)
        )
        guard case .requestComplete(let request) = parser.next() else {
            Issue.record("request not parsed")
            return
        }
        #expect(request.rawPath == "/a%20b")
        #expect(request.path == "/a b")
        #expect(request.target == "/a%20b?x=1&y=two+words&flag")
        #expect(request.query.map(\.name) == ["x", "y", "flag"])
        #expect(request.query.map(\.value) == ["1", "two words", ""])
        #expect(request.headers.values(for: "X-MULTI") == ["1", "2"])
        #expect(request.headers["host"] == "h")
    }

    /// Trailer fields of a chunked body are kept apart from the header fields.
    @Test func parse_keepsTrailersApart() throws {
        var parser = RequestParser(limits: HTTPLimits())
        parser.feed(
            Array(
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\nX-Check: 9\r\n\r\n".utf8
            )
        )
        guard case .requestComplete(let request) = parser.next() else {
            Issue.record("request not parsed")
            return
        }
        #expect(request.trailers["X-Check"] == "9")
        #expect(request.headers["X-Check"] == nil)
        #expect(request.body == Array("z".utf8))
    }

    /// The phase moves from idle to head to body and back to idle, which is what the connection's timers use.
    @Test func phase_tracksTheRequestInProgress() {
        var parser = RequestParser(limits: HTTPLimits())
        #expect(parser.phase == .idle)
        parser.feed(Array("POST / HTTP/1.1\r\n".utf8))
        _ = parser.next()
        #expect(parser.phase == .head)
        parser.feed(Array("Host: h\r\nContent-Length: 3\r\n\r\na".utf8))
        _ = parser.next()
        #expect(parser.phase == .body)
        parser.feed(Array("bc".utf8))
        guard case .requestComplete = parser.next() else {
            Issue.record("request not parsed")
            return
        }
        #expect(parser.phase == .idle)
    }

    /// A limit change applies from the next request head, not to the request in progress.
    @Test func limits_changeAppliesToNextRequest() {
        var parser = RequestParser(limits: HTTPLimits())
        parser.feed(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n".utf8))
        _ = parser.next()
        parser.limits.maxBodySize = 1
        parser.feed(Array("helloPOST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n".utf8))
        guard case .requestComplete = parser.next() else {
            Issue.record("first request should keep its limits")
            return
        }
        guard case .reject(let rejection) = parser.next() else {
            Issue.record("second request should see the new limit")
            return
        }
        #expect(rejection.status.code == 413)
        #expect(rejection.code == "PAYLOAD_TOO_LARGE")
    }
}
