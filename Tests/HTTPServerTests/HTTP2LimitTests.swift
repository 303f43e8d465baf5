import Testing

@testable import HTTPServer

/// The server's own limits on top of libnghttp2: header list (431), body (413), floods (GOAWAY ENHANCE_YOUR_CALM),
/// the h2c upgrade's session, and the request a stream's header fields make.
@Suite struct HTTP2LimitTests {
    private func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        http2Frame(type: type, flags: flags, stream: stream, payload)
    }

    private let postHeaders = http2PostHeaders
    private let opening = HTTP2Preface.bytes + [0, 0, 0, 4, 0, 0, 0, 0, 0]

    private func feed(_ session: HTTP2Session, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    private func rejections(_ session: HTTP2Session) -> [(Int32, Int)] {
        session.events.compactMap { event in
            guard case .reject(let streamID, let rejection) = event else { return nil }
            return (streamID, Int(rejection.status.code))
        }
    }

    @Test func headerListPastTheHeadLimit_isRejectedWith431() throws {
        var limits = HTTPLimits()
        limits.maxHeadSize = 1024
        let session = HTTP2Session(limits: limits)
        try feed(session, opening)
        // A literal field without indexing, new name "x-big", a 2000-byte value (HPACK integer 2000: 7F D1 0E).
        let big: [UInt8] =
            [0x00, 0x05] + Array("x-big".utf8) + [0x7F, 0xD1, 0x0E] + [UInt8](repeating: 0x61, count: 2000)
        try feed(session, frame(type: 1, flags: 0x5, stream: 1, postHeaders + big))
        #expect(rejections(session).map(\.0) == [1])
        #expect(rejections(session).map(\.1) == [431])
    }

    @Test func tooManyHeaderFields_areRejectedWith431() throws {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 3
        let session = HTTP2Session(limits: limits)
        try feed(session, opening)
        try feed(session, frame(type: 1, flags: 0x5, stream: 1, postHeaders))
        #expect(rejections(session).map(\.1) == [431])
    }

    @Test func bodyPastTheLimit_isRejectedWith413_once() throws {
        var limits = HTTPLimits()
        limits.maxBodySize = 10
        let session = HTTP2Session(limits: limits)
        try feed(session, opening)
        try feed(session, frame(type: 1, flags: 0x4, stream: 1, postHeaders))
        try feed(session, frame(type: 0, flags: 0, stream: 1, [UInt8](repeating: 0x61, count: 8)))
        #expect(session.events.isEmpty)
        try feed(session, frame(type: 0, flags: 0, stream: 1, [UInt8](repeating: 0x61, count: 8)))
        #expect(rejections(session).map(\.1) == [413])
        try feed(session, frame(type: 0, flags: 1, stream: 1, [UInt8](repeating: 0x61, count: 8)))
        #expect(session.events.isEmpty, "the rest of a rejected stream is dropped, not completed")
    }

    /// Trailers (a HEADERS frame after the body) stay apart from the header fields: a trailer cannot add a field the
    /// handler would read as a header (`authorization`, `content-type`).
    @Test func trailers_areKeptApartFromTheHeaders() throws {
        let session = HTTP2Session(limits: HTTPLimits())
        try feed(session, opening)
        let trailer: [UInt8] = [0x00, 0x0D] + Array("authorization".utf8) + [0x01, UInt8(ascii: "t")]
        try feed(
            session,
            frame(type: 1, flags: 0x4, stream: 1, postHeaders) + frame(type: 0, flags: 0, stream: 1, Array("{}".utf8))
                + frame(type: 1, flags: 0x5, stream: 1, trailer)
        )
        guard case .request(_, let head, let body, let trailers)? = session.events.first else {
            Issue.record("no request: \(session.events)")
            return
        }
        #expect(!head.headers.contains("authorization"))
        #expect(trailers.map(\.name) == ["authorization"])
        #expect(body == Array("{}".utf8))
    }

    @Test func rapidReset_endsTheSessionWithEnhanceYourCalm() throws {
        var limits = HTTPLimits()
        limits.http2.resetBurst = 5
        limits.http2.resetRate = 0
        let session = HTTP2Session(limits: limits)
        try feed(session, opening)
        _ = try session.takeOutput()
        var flood: [UInt8] = []
        for index in 0..<10 {
            let stream = UInt32(1 + 2 * index)
            flood +=
                frame(type: 1, flags: 0x5, stream: stream, postHeaders)
                + frame(type: 3, flags: 0, stream: stream, [0, 0, 0, 8])
        }
        try feed(session, flood)
        #expect(session.floodDetected != nil)
        let goaway = http2Frames(try session.takeOutput()).first { $0.type == 7 }
        #expect(goaway?.payload.suffix(4) == [0, 0, 0, 11])
        #expect(!session.wantsToContinue)
    }

    @Test func pingFlood_endsTheSessionWithEnhanceYourCalm() throws {
        var limits = HTTPLimits()
        limits.http2.controlFrameBurst = 50
        limits.http2.controlFrameRate = 0
        let session = HTTP2Session(limits: limits)
        try feed(session, opening)
        var flood: [UInt8] = []
        for _ in 0..<49 { flood += frame(type: 6, flags: 0, stream: 0, [UInt8](repeating: 0, count: 8)) }
        try feed(session, flood)
        #expect(session.floodDetected == nil, "49 PINGs fit a burst of 50")
        try feed(
            session,
            frame(type: 6, flags: 0, stream: 0, [UInt8](repeating: 0, count: 8))
                + frame(type: 6, flags: 0, stream: 0, [UInt8](repeating: 0, count: 8))
        )
        #expect(session.floodDetected != nil)
    }

    @Test func upgradedSession_answersStream1() throws {
        let session = try #require(HTTP2Session(upgradingWith: [], headRequest: false, limits: HTTPLimits()))
        #expect(session.answering.ids == [1])
        try feed(session, opening)
        _ = try session.takeOutput()
        #expect(try session.respond(streamID: 1, status: 200, headers: [], body: Array("ok".utf8)))
        let frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.type) == [1, 0])
        #expect(frames.allSatisfy { $0.stream == 1 })
    }

    @Test func upgradeWithAMalformedSettingsPayload_isRefused() {
        #expect(HTTP2Session(upgradingWith: [0, 3, 0, 0], headRequest: false, limits: HTTPLimits()) == nil)
    }

    // MARK: - The request of a stream

    private func streamRequest(
        _ path: String,
        method: String = "GET",
        authority: String? = "example.com"
    ) throws(RequestParser.Rejection) -> HTTPRequest {
        var fields = [(name: ":method", value: method), (name: ":scheme", value: "http"), (name: ":path", value: path)]
        if let authority { fields.append((":authority", authority)) }
        fields.append(("content-type", "application/json"))
        return try HTTPRequest.fromHTTP2(
            headers: fields,
            body: [1, 2],
            limits: HTTPLimits(),
            remoteAddress: "1.2.3.4:5"
        )
    }

    @Test func streamRequest_isTheSameValueTheHTTP1ParserBuilds() throws {
        let request = try streamRequest("/tables/a%20b/rows?x=1&y=%C3%A9")
        #expect(request.method == "GET")
        #expect(request.version == .http2)
        #expect(request.rawPath == "/tables/a%20b/rows")
        #expect(request.path == "/tables/a b/rows")
        #expect(request.query.map(\.name) == ["x", "y"])
        #expect(request.query.map(\.value) == ["1", "é"])
        #expect(request.headers["Host"] == "example.com")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.body == [1, 2])
        #expect(request.remoteAddress == "1.2.3.4:5")
    }

    @Test(arguments: ["relative", "/a b", "/%zz", "/?q=%", "/#frag", "*"])
    func streamRequest_malformedPath_is400(path: String) {
        #expect(throws: RequestParser.Rejection.self) { try streamRequest(path) }
        do {
            _ = try streamRequest(path)
        } catch {
            #expect(error.status == .badRequest)
        }
    }

    @Test func streamRequest_longPath_is414() {
        do {
            _ = try streamRequest("/" + String(repeating: "a", count: 9000))
            Issue.record("accepted")
        } catch {
            #expect(error.status == .uriTooLong)
        }
    }

    @Test func streamRequest_badAuthority_is400() {
        do {
            _ = try streamRequest("/", authority: "a b")
            Issue.record("accepted")
        } catch {
            #expect(error.status == .badRequest)
        }
    }
}
