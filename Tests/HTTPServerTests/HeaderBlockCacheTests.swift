import Testing

@testable import HTTPServer

/// A session takes a repeated request header block whole (``HeaderBlockCache``), and only when it is the same
/// bytes: the remembered head is handed over again for the same fields, indexed or literal, and any other block —
/// changed, shorter, longer, past a limit — is taken field by field and gives exactly its own fields.
@Suite struct HeaderBlockCacheTests {
    // HPACK pieces. Indexed from the static table: `:method GET` (0x82), `:method POST` (0x83), `:scheme http`
    // (0x86), `:path /` (0x84).
    private static let post: UInt8 = 0x83
    private static let get: UInt8 = 0x82
    private static let scheme: UInt8 = 0x86

    /// A literal with incremental indexing, the name from the static table (`index`): it enters the dynamic table.
    private static func indexing(nameIndex index: UInt8, _ value: String) -> [UInt8] {
        [0x40 | index, UInt8(value.utf8.count)] + Array(value.utf8)
    }

    /// A literal without indexing (as libnghttp2's clients send `:path` and `content-length`): a new buffer each time.
    private static func literal(nameIndex index: UInt8, _ value: String) -> [UInt8] {
        // A 4-bit prefix: from 15 on, the rest of the index follows.
        (index < 15 ? [index] : [0x0F, index - 15]) + [UInt8(value.utf8.count)] + Array(value.utf8)
    }

    /// Dynamic table entry `n` (1 = the newest), indexed.
    private static func dynamic(_ n: Int) -> UInt8 { 0x80 | UInt8(61 + n) }

    private let session: HTTP2Session
    private var nextStream: UInt32 = 1

    init() throws {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 6
        session = HTTP2Session(limits: limits)
        try feed(HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0))
    }

    private func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    /// Sends `block` as a whole request (HEADERS with END_STREAM) on the next stream; the events it gave.
    private mutating func send(_ block: [UInt8]) throws -> [HTTP2Session.Event] {
        try feed(http2Frame(type: 1, flags: 0x5, stream: nextStream, block))
        nextStream += 2
        return session.events
    }

    private mutating func head(_ block: [UInt8]) throws -> HTTP2RequestHead {
        let events = try send(block)
        guard events.count == 1, case .request(_, let head, _, _) = events[0] else {
            Issue.record("expected one request, got \(events)")
            return HTTP2RequestHead()
        }
        return head
    }

    private static func names(_ head: HTTP2RequestHead) -> [String] { head.fields.map(\.name) }
    private static func values(_ head: HTTP2RequestHead) -> [String] { head.fields.map(\.value) }

    @Test mutating func anIndexedRepeatTakesTheRememberedHead() throws {
        // First: `:authority a.example` and `user-agent ua` enter the dynamic table (user-agent newest).
        let first = try head(
            [Self.post, Self.scheme, 0x84] + Self.indexing(nameIndex: 1, "a.example")
                + Self.indexing(nameIndex: 58, "ua")
        )
        #expect(first.serial != 0)
        // Then the same fields as indexes into it: the table's own buffers.
        let second = try head([Self.post, Self.scheme, 0x84, Self.dynamic(2), Self.dynamic(1)])
        #expect(second === first)
        #expect(Self.names(second) == [":method", ":scheme", ":path", ":authority", "user-agent"])
        #expect(Self.values(second) == ["POST", "http", "/", "a.example", "ua"])
        #expect(second.headers["host"] == "a.example")
    }

    @Test mutating func aLiteralRepeatMatchesByItsBytes() throws {
        let block =
            [Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/query")
            + Self.literal(nameIndex: 1, "a") + Self.literal(nameIndex: 58, "ua")
        let first = try head(block)
        let second = try head(block)
        #expect(second === first)
        #expect(Self.values(second) == ["POST", "http", "/query", "a", "ua"])
    }

    @Test mutating func aChangedFieldIsTakenFieldByField() throws {
        let first = try head([Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/a") + [0x41, 1, 0x61])
        // The last field differs: the matched prefix is taken field by field too.
        let last = try head([Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/a") + [0x41, 1, 0x62])
        #expect(last !== first && last.serial != first.serial)
        #expect(Self.values(last) == ["POST", "http", "/a", "b"])
        // The first field differs.
        let firstField = try head([Self.get, Self.scheme] + Self.literal(nameIndex: 4, "/a") + [0x41, 1, 0x62])
        #expect(firstField !== last)
        #expect(Self.values(firstField) == ["GET", "http", "/a", "b"])
        // A field of the same length and another byte.
        let path = try head([Self.get, Self.scheme] + Self.literal(nameIndex: 4, "/c") + [0x41, 1, 0x62])
        #expect(Self.values(path) == ["GET", "http", "/c", "b"])
        // The changed block is the one remembered now.
        #expect(try head([Self.get, Self.scheme] + Self.literal(nameIndex: 4, "/c") + [0x41, 1, 0x62]) === path)
    }

    @Test mutating func aShorterOrLongerBlockGetsExactlyItsFields() throws {
        let base = [Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/q") + [0x41, 1, 0x61]
        let full = try head(base + Self.literal(nameIndex: 58, "u"))
        // A prefix of the remembered block: every field matched, but not all of them came.
        let shorter = try head(base)
        #expect(shorter !== full)
        #expect(Self.names(shorter) == [":method", ":scheme", ":path", ":authority"])
        let longer = try head(base + Self.literal(nameIndex: 19, "x"))
        #expect(Self.names(longer) == [":method", ":scheme", ":path", ":authority", "accept"])
        let longest = try head(base + Self.literal(nameIndex: 19, "x") + Self.literal(nameIndex: 58, "u"))
        #expect(Self.values(longest) == ["POST", "http", "/q", "a", "x", "u"])
    }

    /// A block past a limit is refused each time it comes and never remembered; the last good block still is.
    @Test mutating func aBlockPastTheLimitsIsRefusedAndNotRemembered() throws {
        let good = [Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/q") + [0x41, 1, 0x61]
        let remembered = try head(good)
        // Seven fields, one past `maxHeaderCount`; its first four are the remembered block's.
        let tooMany =
            good + Self.literal(nameIndex: 58, "u") + Self.literal(nameIndex: 31, "t")
            + Self.literal(nameIndex: 19, "x")
        for _ in 0..<2 {
            let events = try send(tooMany)
            guard events.count == 1, case .reject(_, let rejection) = events[0] else {
                Issue.record("expected a rejection, got \(events)")
                return
            }
            #expect(rejection.status == .requestHeaderFieldsTooLarge)
        }
        #expect(try head(good) === remembered)
    }

    /// Trailers are never matched against the request head nor remembered.
    @Test mutating func trailersAreTakenApart() throws {
        let block = [Self.post, Self.scheme] + Self.literal(nameIndex: 4, "/q") + Self.literal(nameIndex: 1, "a")
        let remembered = try head(block)
        let stream = nextStream
        nextStream += 2
        try feed(http2Frame(type: 1, flags: 0x4, stream: stream, block))
        try feed(http2Frame(type: 0, flags: 0, stream: stream, Array("{}".utf8)))
        try feed(http2Frame(type: 1, flags: 0x5, stream: stream, Self.literal(nameIndex: 58, "trailer")))
        guard session.events.count == 1, case .request(_, let head, let body, let trailers) = session.events[0] else {
            Issue.record("expected one request, got \(session.events)")
            return
        }
        #expect(head === remembered)
        #expect(body == Array("{}".utf8))
        #expect(trailers.map(\.name) == ["user-agent"] && trailers.map(\.value) == ["trailer"])
        #expect(try self.head(block) === remembered)
    }

    /// The request built from a remembered head is built once per serial: the same serial gives the same request
    /// with its own body; a head that failed its checks is checked (and refused) again.
    @Test func requestMemo_reusesTheRequestOfTheSameSerialOnly() throws {
        var cache = HTTP2RequestCache()
        func request(_ head: HTTP2RequestHead, _ body: String) throws(RequestParser.Rejection) -> HTTPRequest {
            try HTTPRequest.fromHTTP2(
                head: head,
                body: Array(body.utf8),
                limits: HTTPLimits(),
                remoteAddress: "10.0.0.1",
                cache: &cache
            )
        }
        let head = HTTP2RequestHead([(":method", "POST"), (":path", "/q?x=%41"), (":authority", "a"), ("k", "v")])
        head.serial = 1
        let first = try request(head, "one")
        let second = try request(head, "two")
        for (built, body) in [(first, "one"), (second, "two")] {
            #expect(built.method == "POST" && built.path == "/q" && built.rawPath == "/q")
            #expect(built.query.map(\.value) == ["A"])
            #expect(built.headers["k"] == "v" && built.headers["host"] == "a")
            #expect(built.remoteAddress == "10.0.0.1" && built.version == .http2 && built.keepAlive)
            #expect(built.body == Array(body.utf8))
        }
        let other = HTTP2RequestHead([(":method", "GET"), (":path", "/r"), (":authority", "a")])
        other.serial = 2
        #expect(try request(other, "").path == "/r")
        let invalid = HTTP2RequestHead([(":method", "GET"), (":path", "r"), (":authority", "a")])
        invalid.serial = 3
        #expect(throws: RequestParser.Rejection.self) { try request(invalid, "") }
        #expect(throws: RequestParser.Rejection.self) { try request(invalid, "") }
        #expect(try request(head, "three").body == Array("three".utf8))
    }
}

/// The response block appends a handler's shared fields again as bytes only when they are the same storage and the
/// same `Server` value; anything else is checked and lower-cased anew.
@Suite struct HTTP2ResponseFieldsMemoTests {
    private static func fields(_ block: HTTP2ResponseFields) -> [String] {
        block.withNameValues { pairs in
            pairs.map { pair in
                String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self) + ": "
                    + String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
            }
        }
    }

    @Test func sharedFieldsAreAppendedAgainAndOthersAnew() {
        let block = HTTP2ResponseFields()
        let shared: HTTPHeaders = ["Content-Type": "application/json", "Connection": "close"]
        for _ in 0..<2 {
            block.reset(status: 200)
            block.appendFields(of: shared, server: "sqlited")
            block.append("content-length", decimal: 2)
            #expect(
                Self.fields(block) == [
                    ":status: 200", "server: sqlited", "content-type: application/json", "content-length: 2",
                ]
            )
        }
        // Another server value with the same fields.
        block.reset(status: 404)
        block.appendFields(of: shared, server: nil)
        #expect(Self.fields(block) == [":status: 404", "content-type: application/json"])
        block.reset(status: 404)
        block.appendFields(of: shared, server: "other")
        #expect(Self.fields(block) == [":status: 404", "server: other", "content-type: application/json"])
        // Other fields; the handler's own Server is dropped only when the server sends one.
        var changed = shared
        changed.add(name: "Server", value: "handler")
        changed.add(name: "X-Bad", value: "a\r\nb")
        block.reset(status: 200)
        block.appendFields(of: changed, server: "other")
        #expect(Self.fields(block) == [":status: 200", "server: other", "content-type: application/json"])
        block.reset(status: 200)
        block.appendFields(of: changed, server: nil)
        #expect(Self.fields(block) == [":status: 200", "content-type: application/json", "server: handler"])
        // Equal fields in other storage: the same outcome.
        block.reset(status: 200)
        block.appendFields(of: ["Content-Type": "application/json", "Connection": "close"], server: "sqlited")
        #expect(Self.fields(block) == [":status: 200", "server: sqlited", "content-type: application/json"])
    }
}
