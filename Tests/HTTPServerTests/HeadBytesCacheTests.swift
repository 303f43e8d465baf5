import LoopbackTestSupport
import Testing

@testable import HTTPServer

/// A keep-alive connection's repeated head is taken as parsed before (HeadBytesCache) only when its bytes and the
/// limits are the same: every request reads exactly as a fresh parser reads it, and any difference is parsed
/// afresh, with its errors.
@Suite struct HeadBytesCacheTests {
    /// Everything a parsed request carries, for comparison (HTTPRequest itself is not Equatable).
    struct Parsed: Equatable, CustomStringConvertible {
        var method, target, rawPath, path: String
        var query: [String]
        var headers: [String]
        var trailers: [String]
        var body: [UInt8]
        var keepAlive: Bool
        var version: HTTPVersion

        init(_ request: HTTPRequest) {
            method = request.method
            target = request.target
            rawPath = request.rawPath
            path = request.path
            query = request.query.map { "\($0.name)=\($0.value)" }
            headers = request.headers.map { "\($0.name): \($0.value)" }
            trailers = request.trailers.map { "\($0.name): \($0.value)" }
            body = request.body
            keepAlive = request.keepAlive
            version = request.version
        }

        var description: String { "\(method) \(target) \(headers) body=\(body.count) keepAlive=\(keepAlive)" }
    }

    enum Event: Equatable, CustomStringConvertible {
        case request(Parsed)
        case sendContinue
        case reject(Int)

        var description: String {
            switch self {
            case .request(let parsed): "request(\(parsed))"
            case .sendContinue: "100-continue"
            case .reject(let status): "reject(\(status))"
            }
        }
    }

    /// Feeds `chunks` to one parser (one connection) and collects its events until a rejection.
    static func events(_ chunks: [String], limits: [HTTPLimits]? = nil) -> [Event] {
        var parser = RequestParser(limits: HTTPLimits())
        var events: [Event] = []
        for (index, chunk) in chunks.enumerated() {
            if let limits { parser.limits = limits[index] }
            parser.feed(Array(chunk.utf8))
            let goesOn = drain(&parser) { action in
                switch action {
                case .needMoreData: break
                case .send100Continue: events.append(.sendContinue)
                case .requestComplete(let request): events.append(.request(Parsed(request)))
                case .reject(let rejection): events.append(.reject(rejection.status.code))
                }
            }
            if !goesOn { return events }
        }
        return events
    }

    static let post =
        "POST /query?x=1&y=%20z HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello"

    /// The same request three times, pipelined in one read and in three reads: three equal requests, each as a
    /// parser that never saw the others reads it.
    @Test func sameHead_readsAsAFreshParse() {
        let fresh = Self.events([Self.post])
        #expect(fresh.count == 1)
        #expect(Self.events([Self.post + Self.post + Self.post]) == fresh + fresh + fresh)
        #expect(Self.events([Self.post, Self.post, Self.post]) == fresh + fresh + fresh)
    }

    /// A head split across reads, so that the buffer is compacted while the head is parsed (its first lines are
    /// gone: it is not remembered), then the same head whole: both read as fresh parses.
    @Test func splitHead_compactedMidway_thenWhole() {
        let fresh = Self.events([Self.post])
        let split = Self.post.index(Self.post.startIndex, offsetBy: 60)
        let parts = [String(Self.post[..<split]), String(Self.post[split...])]
        #expect(Self.events(parts + [Self.post, Self.post]) == fresh + fresh + fresh)
        #expect(Self.events([Self.post] + parts + [Self.post]) == fresh + fresh + fresh)
    }

    /// Heads that differ from the remembered one by one byte read as they should, not as the remembered head.
    @Test(arguments: [
        Self.post.replacingOccurrences(of: "Length: 5", with: "Length: 6") + "!",
        Self.post.replacingOccurrences(of: "example.com", with: "example.org"),
        Self.post.replacingOccurrences(of: "x=1", with: "x=2"),
        Self.post.replacingOccurrences(of: "Host: example.com\r\n", with: "Host: example.com\r\nConnection: close\r\n"),
        Self.post.replacingOccurrences(of: "HTTP/1.1\r\nHost", with: "HTTP/1.0\r\nHost"),
    ])
    func headDifferingByABit_isParsedAfresh(_ other: String) {
        #expect(Self.events([Self.post, other]) == Self.events([Self.post]) + Self.events([other]))
        #expect(Self.events([Self.post + other]) == Self.events([Self.post]) + Self.events([other]))
    }

    /// A head like the remembered one but malformed is rejected as ever.
    @Test(arguments: [
        (Self.post.replacingOccurrences(of: "Length: 5\r\n", with: "Length: 5\n"), 400),
        (Self.post.replacingOccurrences(of: "Content-Length: 5", with: "Content-Length: 5, 6"), 400),
        (Self.post.replacingOccurrences(of: "Host: example.com\r\n", with: "Host: example.com\r\nHost: b\r\n"), 400),
        (Self.post.replacingOccurrences(of: "Content-Length: 5", with: "Content-Length: 99999999999"), 413),
    ])
    func malformedVariant_isRejected(_ other: String, _ status: Int) {
        #expect(Self.events([Self.post, other]) == Self.events([Self.post]) + [.reject(status)])
    }

    /// The same head under a lower body limit (a reload) is parsed again under it: 413.
    @Test func sameHead_newLimits_parsedUnderThem() {
        var lower = HTTPLimits()
        lower.maxBodySize = 4
        #expect(
            Self.events([Self.post, Self.post], limits: [HTTPLimits(), lower]) == Self.events([Self.post]) + [
                .reject(413)
            ]
        )
    }

    /// Repeated heads with `Expect: 100-continue` and with a chunked body keep their framing.
    @Test func sameHead_expectContinueAndChunked_keepTheirFraming() {
        let expecting =
            "PUT /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc"
        let one = Self.events([expecting])
        #expect(one.first == .sendContinue)
        #expect(Self.events([expecting + expecting + expecting]) == one + one + one)
        let chunked = "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let single = Self.events([chunked])
        #expect(single.count == 1)
        #expect(Self.events([chunked, chunked]) == single + single)
    }

    /// Every valid case of the parser table, sent twice on one connection, reads as it does once, twice over.
    @Test func parserTable_twiceOnOneConnection_readsTwiceOver() {
        var checked = 0
        for testCase in parserCases where testCase.limits == HTTPLimits() {
            let raw = String(decoding: testCase.raw, as: UTF8.self)
            let once = Self.events([raw])
            guard !once.isEmpty,
                once.allSatisfy({ if case .request(let parsed) = $0 { parsed.keepAlive } else { $0 == .sendContinue } }
                ),
                Self.endsAtARequestBoundary(testCase.raw)
            else { continue }
            #expect(Self.events([raw + raw]) == once + once, "\(testCase.name)")
            #expect(Self.events([raw, raw]) == once + once, "\(testCase.name)")
            checked += 1
        }
        #expect(checked >= 10)
    }

    static let keyed =
        "POST /update HTTP/1.1\r\nHost: h\r\nIdempotency-Key: k-1\r\ntraceparent: 00-aa-01\r\nContent-Length: 2\r\n\r\n{}"

    static func keyed(_ key: String, trace: String = "00-aa-01") -> String {
        keyed.replacingOccurrences(of: "k-1", with: key).replacingOccurrences(of: "00-aa-01", with: trace)
    }

    /// The remembered head with other values in fields that do not frame it (shorter, longer, empty, with
    /// whitespace to trim, non-ASCII), one or two lines changed: each reads as a fresh parser reads it, with its own
    /// values, pipelined and not.
    @Test(arguments: [
        Self.keyed("k-22"), Self.keyed("k"), Self.keyed(""), Self.keyed("  k-3 \t"), Self.keyed("ké"),
        Self.keyed("k-4", trace: "00-bb-02"), Self.keyed("k-1", trace: "00-bbbbbbbbbbbbbbbbbbbbbb-02"),
    ])
    func otherValuesOfUnframingFields_readAsAFreshParse(_ other: String) {
        let expected = Self.events([Self.keyed]) + Self.events([other])
        #expect(expected.count == 2)
        #expect(Self.events([Self.keyed, other]) == expected)
        #expect(Self.events([Self.keyed + other]) == expected)
        #expect(Self.events([Self.keyed, other, other, Self.keyed]) == expected + expected.reversed())
    }

    /// Another value in a line the remembered head's framing depends on, another name, another line, an invalid
    /// value, a head past its limit: each reads (or is rejected) exactly as a fresh parser reads it.
    @Test(arguments: [
        Self.keyed.replacingOccurrences(of: "Length: 2\r\n\r\n{}", with: "Length: 3\r\n\r\n{} "),
        Self.keyed.replacingOccurrences(of: "Host: h", with: "Host: i"),
        Self.keyed.replacingOccurrences(of: "Host: h", with: "Host: h\r\nConnection: close"),
        Self.keyed.replacingOccurrences(of: "Idempotency-Key", with: "Idempotency-Kez"),
        Self.keyed.replacingOccurrences(of: "Idempotency-Key", with: "idempotency-key"),
        Self.keyed.replacingOccurrences(of: "traceparent: 00-aa-01\r\n", with: ""),
        Self.keyed.replacingOccurrences(of: "k-1", with: "k-1\r\nX-Other: 1"),
        Self.keyed.replacingOccurrences(of: "/update", with: "/query"),
        Self.keyed("k\u{0}1"), Self.keyed("k\r1"), Self.keyed("k\n1"), Self.keyed("k-1\n"), Self.keyed("k-1\r\n x"),
        Self.keyed("k-1\r\n\tx"), Self.keyed(String(repeating: "k", count: 16 * 1024)), "\r\n" + Self.keyed("k-2"),
        Self.keyed(String(repeating: "k", count: 16 * 1024 - 120)),
    ])
    func otherwiseDifferentHeads_readAsAFreshParse(_ other: String) {
        #expect(Self.events([Self.keyed, other]) == Self.events([Self.keyed]) + Self.events([other]))
        #expect(Self.events([Self.keyed + other]) == Self.events([Self.keyed]) + Self.events([other]))
    }

    /// The remembered head with bodies of other lengths (`Content-Length` its one framing field that differs):
    /// longer, shorter, empty, with leading zeros or whitespace, pipelined with their bodies, each reads as a fresh
    /// parser reads it.
    @Test func otherBodyLengths_readAsAFreshParse() {
        func post(_ length: String, _ body: String) -> String {
            Self.keyed.replacingOccurrences(of: "Length: 2\r\n\r\n{}", with: "Length: \(length)\r\n\r\n\(body)")
        }
        let heads = [
            Self.keyed, post("8", "{\"a\": 1}"), post("0", ""), post("2", "[]"), post("007", "1234567"),
            post(" 3\t", "abc"), post("12", "{\"sql\": \"x\"}"), Self.keyed,
        ]
        let expected = heads.flatMap { Self.events([$0]) }
        #expect(expected.count == heads.count)
        #expect(Self.events(heads) == expected)
        #expect(Self.events([heads.joined()]) == expected)
    }

    /// Lengths the parser refuses or reads otherwise, and heads whose length must not be taken from the cache (two
    /// `Content-Length` fields, `Expect`, HTTP/1.0): each is read, or rejected, exactly as a fresh parser does.
    @Test(arguments: [
        "+5", "-1", "5 5", "0x5", "5,5", "", "1234567890123456789", "99999999999", String(10 * 1024 * 1024 + 1),
    ])
    func otherLengthsRefusedOrNot_readAsAFreshParse(_ length: String) {
        let other = Self.keyed.replacingOccurrences(of: "Length: 2\r\n", with: "Length: \(length)\r\n")
        #expect(Self.events([Self.keyed, other]) == Self.events([Self.keyed]) + Self.events([other]))
    }

    @Test(arguments: [
        "POST /u HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
        "POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
        "POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n",
        "POST /u HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}",
    ])
    func lengthsOfHeadsThatMayNotVary_readAsAFreshParse(_ head: String) throws {
        for length in [3, 0, 2] {
            // The last Content-Length only (with two fields, the two then disagree), and a body of that length.
            let headEnd = try #require(head.range(of: "\r\n\r\n"))
            var other = String(head[..<headEnd.upperBound])
            let value = try #require(other.range(of: "Length: ", options: .backwards))
            let valueEnd = try #require(other[value.upperBound...].range(of: "\r\n"))
            other.replaceSubrange(value.upperBound..<valueEnd.lowerBound, with: String(length))
            other += String(repeating: "x", count: length)
            #expect(
                Self.events([head, other]) == Self.events([head]) + Self.events([other]),
                "\(other.debugDescription)"
            )
        }
    }

    /// A head sent after empty lines (which the parser skips) is remembered with them: the same bytes are taken
    /// again, another value is parsed afresh, and all read as fresh parses.
    @Test func headAfterEmptyLines_readsAsAFreshParse() {
        let heads = [
            "\r\n" + Self.keyed, "\r\n" + Self.keyed, "\r\n" + Self.keyed("k-3"), Self.keyed("k-4"), Self.keyed,
        ]
        let expected = heads.flatMap { Self.events([$0]) }
        #expect(expected.count == heads.count)
        #expect(Self.events(heads) == expected)
        #expect(Self.events([heads.joined()]) == expected)
    }

    /// Random values, valid and not (control bytes, CR, LF, colons, whitespace, non-ASCII), in the two fields that do
    /// not frame the request: every head reads as a fresh parser reads it.
    @Test func randomValues_readAsAFreshParse() {
        var random = SplitMix64(seed: 27)
        let alphabet = ["a", "Z", "0", "-", ":", " ", "\t", "\r", "\n", "\u{0}", "\u{7F}", "é", "\r\n", ";", ","]
        func value() -> String {
            (0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
        }
        var requests = 0
        for _ in 0..<400 {
            let other = Self.keyed(value(), trace: value())
            let expected = Self.events([Self.keyed]) + Self.events([other])
            #expect(Self.events([Self.keyed, other]) == expected, "\(other.debugDescription)")
            requests += expected.filter { if case .request = $0 { true } else { false } }.count
        }
        // Both kinds were tried: most heads parse, some are rejected.
        #expect(requests > 400 && requests < 800)
    }

    /// Random `Content-Length` values, valid and not, in the remembered head: each reads as a fresh parser reads it.
    @Test func randomLengths_readAsAFreshParse() {
        var random = SplitMix64(seed: 28)
        let alphabet = ["0", "1", "2", "9", " ", "\t", "+", "-", "x", ",", "\r"]
        for _ in 0..<300 {
            let length = (0..<Int(random.next() % 5)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let other = Self.keyed.replacingOccurrences(of: "Length: 2\r\n", with: "Length: \(length.joined())\r\n")
            #expect(
                Self.events([Self.keyed, other]) == Self.events([Self.keyed]) + Self.events([other]),
                "\(other.debugDescription)"
            )
        }
    }

    /// The cache itself takes a head whose unframing field has another value, with that value, and refuses one
    /// whose framing field has another.
    @Test func cache_takesAnotherValueOfAnUnframingFieldOnly() throws {
        let head = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Id: 1\r\n\r\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "h")
        headers.add(name: "X-Id", value: "1")
        let parsed = HeadBytesCache.Parsed(
            method: "GET",
            version: .http1_1,
            target: "/",
            absoluteAuthority: nil,
            rawPath: "/",
            path: "/",
            query: [],
            headers: headers,
            keepAlive: true,
            framing: .none
        )
        var cache = HeadBytesCache()
        cache.remember(head[...], parsed, limits: HTTPLimits())
        func match(_ text: String) -> (headers: [String], length: Int)? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                cache.match(buffer, limits: HTTPLimits()).map {
                    ($0.headers.map { "\($0.name)=\($0.value)" }, $0.length)
                }
            }
        }
        let taken = try #require(match("GET / HTTP/1.1\r\nHost: h\r\nX-Id: 12345\r\n\r\nnext"))
        #expect(taken.headers == ["Host=h", "X-Id=12345"])
        #expect(taken.length == head.count + 4)
        #expect(match("GET / HTTP/1.1\r\nHost: i\r\nX-Id: 1\r\n\r\n") == nil)
        #expect(match("GET / HTTP/1.1\r\nHost: h\r\nX-Id: 12345\r\n") == nil)
    }

    /// Whether a fresh parser consumes all of `raw` in complete requests (no partial request left).
    static func endsAtARequestBoundary(_ raw: [UInt8]) -> Bool {
        var parser = RequestParser(limits: HTTPLimits())
        parser.feed(raw)
        guard drain(&parser, { _ in }) else { return false }
        return parser.bufferedByteCount == 0 && parser.phase == .idle
    }
}
