import Testing

@testable import HTTPServer

/// RFC 9113's stream rules that libnghttp2 1.52 leaves to the server (issue #23): a stream past
/// `SETTINGS_MAX_CONCURRENT_STREAMS` is a stream error even after the client acknowledged the SETTINGS, and a HEADERS
/// frame on a skipped stream id is a connection error `PROTOCOL_ERROR`.
@Suite struct HTTP2StreamAdmissionTests {
    private let postHeaders = http2PostHeaders

    private func feed(_ session: HTTP2Session, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    private func makeSession(maxConcurrentStreams: Int) -> HTTP2Session {
        var limits = HTTPLimits()
        limits.http2.maxConcurrentStreams = maxConcurrentStreams
        return HTTP2Session(limits: limits)
    }

    /// A session whose SETTINGS the client has received and acknowledged, as every real client does.
    private func acknowledgedSession(maxConcurrentStreams: Int) throws -> HTTP2Session {
        let session = makeSession(maxConcurrentStreams: maxConcurrentStreams)
        try feed(session, HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0))
        _ = try session.takeOutput()
        try feed(session, http2Frame(type: 4, flags: 0x1, stream: 0))
        _ = try session.takeOutput()
        return session
    }

    /// The streams of the requests among the events of the last `receive`.
    private func requestIDs(_ session: HTTP2Session) -> [Int32] {
        session.events.compactMap { event in
            guard case .request(let streamID, _, _, _) = event else { return nil }
            return streamID
        }
    }

    /// The value of `SETTINGS_MAX_CONCURRENT_STREAMS` in a SETTINGS payload.
    private func maxConcurrentStreams(_ payload: [UInt8]) -> UInt32? {
        stride(from: 0, to: payload.count - 5, by: 6).first { payload[$0] == 0 && payload[$0 + 1] == 3 }.map {
            payload[($0 + 2)..<($0 + 6)].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    @Test(arguments: [0, 1, 100, 250])
    func theSettingsFrameSent_carriesTheConfiguredLimit(limit: Int) throws {
        let session = makeSession(maxConcurrentStreams: limit)
        try feed(session, HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0))
        let settings = try #require(http2Frames(try session.takeOutput()).first)
        #expect(settings.type == 4 && settings.flags == 0)
        #expect(maxConcurrentStreams(settings.payload) == UInt32(limit))
    }

    /// After the ACK, the stream past the limit alone is reset `REFUSED_STREAM`; the open streams go on and are
    /// answered, no GOAWAY; once a stream closes a new one is taken again.
    @Test func pastTheLimitAfterTheAck_onlyThatStreamIsRefused() throws {
        let session = try acknowledgedSession(maxConcurrentStreams: 2)
        try feed(
            session,
            http2Frame(type: 1, flags: 0x4, stream: 1, postHeaders)
                + http2Frame(type: 1, flags: 0x4, stream: 3, postHeaders)
                + http2Frame(type: 1, flags: 0x4, stream: 5, postHeaders)
                + http2Frame(type: 1, flags: 0x4, stream: 7, postHeaders)
        )
        let frames = http2Frames(try session.takeOutput())
        #expect(frames.filter { $0.type == 3 }.map(\.stream) == [5, 7])
        #expect(frames.filter { $0.type == 3 }.allSatisfy { $0.payload == [0, 0, 0, 7] })
        #expect(!frames.contains { $0.type == 7 }, "no GOAWAY")

        try feed(session, http2Frame(type: 0, flags: 0x1, stream: 1, Array("{}".utf8)))
        #expect(session.events.count == 1)
        try session.respond(streamID: 1, status: 200, headers: [], body: [])
        _ = try session.takeOutput()
        // Stream 1 is closed: stream 9 is within the limit again (3 and 9 open).
        try feed(session, http2Frame(type: 1, flags: 0x5, stream: 9, postHeaders))
        let after = http2Frames(try session.takeOutput())
        #expect(!after.contains { $0.type == 3 || $0.type == 7 })
        guard case .request(let streamID, _, _, _)? = session.events.first else {
            Issue.record("stream 9 was not handed over: \(session.events)")
            return
        }
        #expect(streamID == 9)
    }

    /// A late HEADERS frame (trailers) on a stream the server refused is ignored, not a connection error.
    @Test func headersOnARefusedStream_areIgnored() throws {
        let session = try acknowledgedSession(maxConcurrentStreams: 1)
        try feed(
            session,
            http2Frame(type: 1, flags: 0x4, stream: 1, postHeaders)
                + http2Frame(type: 1, flags: 0x4, stream: 3, postHeaders)
        )
        _ = try session.takeOutput()
        // Trailers the client sent before the reset reached it: `x: y` (literal without indexing).
        try feed(session, http2Frame(type: 1, flags: 0x5, stream: 3, [0x00, 0x01, 0x78, 0x01, 0x79]))
        #expect(!http2Frames(try session.takeOutput()).contains { $0.type == 7 })
    }

    /// Stream 5 answered, then HEADERS on stream 3 (never opened): GOAWAY `PROTOCOL_ERROR`, the session ends.
    @Test func headersOnASkippedLowerStreamID_isAConnectionProtocolError() throws {
        let session = try acknowledgedSession(maxConcurrentStreams: 100)
        try feed(session, http2Frame(type: 1, flags: 0x5, stream: 5, postHeaders))
        try session.respond(streamID: 5, status: 200, headers: [], body: [])
        _ = try session.takeOutput()
        // A request completed in the same read before the bad frame is still handed over; nothing after it is read.
        try feed(
            session,
            http2Frame(type: 1, flags: 0x5, stream: 7, postHeaders)
                + http2Frame(type: 1, flags: 0x5, stream: 3, postHeaders)
                + http2Frame(type: 1, flags: 0x5, stream: 9, postHeaders)
        )
        #expect(requestIDs(session) == [7])
        let goAway = try #require(http2Frames(try session.takeOutput()).first { $0.type == 7 })
        #expect(Array(goAway.payload[4..<8]) == [0, 0, 0, 1])  // PROTOCOL_ERROR
        #expect(Array(goAway.payload[0..<4]) == [0, 0, 0, 7])  // the last stream processed
        #expect(!session.wantsToContinue)
        try feed(session, http2Frame(type: 1, flags: 0x5, stream: 11, postHeaders))
        #expect(session.events.isEmpty)
    }

    // MARK: - The bookkeeping itself

    @Test func admission_countsOpenStreams_andRemembersResets() {
        var admission = StreamAdmission(maxConcurrentStreams: 2)
        let first = admission.headersFrame(streamID: 1) { false }
        #expect(first == .passOn)
        let opened = [admission.open(1), admission.open(3), admission.open(5)]
        #expect(opened == [true, true, false])
        #expect(admission.openCount == 2)
        admission.closed(5)  // refused: never counted
        #expect(admission.openCount == 2)
        admission.closed(1)
        #expect(admission.openCount == 1)
        let reopened = admission.open(7)
        #expect(reopened)
        // Lower ids: known to libnghttp2, reset by the server (5 was refused), or skipped; even ids are libnghttp2's.
        let lower = [
            admission.headersFrame(streamID: 3) { true }, admission.headersFrame(streamID: 5) { false },
            admission.headersFrame(streamID: 1) { false }, admission.headersFrame(streamID: 2) { false },
        ]
        #expect(lower == [.passOn, .passOn, .protocolError, .passOn])
    }

    @Test func admission_remembersTheLastResetsOnly() {
        var admission = StreamAdmission(maxConcurrentStreams: 0)
        let count = StreamAdmission.rememberedResets + 10
        var opened: [Bool] = []
        for index in 0..<count { opened.append(admission.open(Int32(2 * index + 1))) }
        #expect(opened.allSatisfy { !$0 })
        // The first ten resets (1...19) are forgotten; 21 and later are remembered.
        let verdicts = [1, 19, 21, 2 * count - 1].map { id in admission.headersFrame(streamID: Int32(id)) { false } }
        #expect(verdicts == [.protocolError, .protocolError, .passOn, .passOn])
    }

    @Test func advertise_rewritesOnlyAServerSettingsFrame() {
        var settings = http2Frame(type: 4, flags: 0, stream: 0, [0, 4, 0, 1, 0, 0] + [0, 3, 0xff, 0xff, 0xff, 0xff])
        let rewritten = StreamAdmission.advertise(100, inFirstFrameOf: &settings, at: 0)
        #expect(rewritten)
        #expect(Array(settings[(9 + 6)...]) == [0, 3, 0, 0, 0, 100])
        #expect(Array(settings[9..<15]) == [0, 4, 0, 1, 0, 0])
        var ack = http2Frame(type: 4, flags: 1, stream: 0)
        let ackRewritten = StreamAdmission.advertise(100, inFirstFrameOf: &ack, at: 0)
        #expect(!ackRewritten)
        var ping = http2Frame(type: 6, flags: 0, stream: 0, [0, 3, 0xff, 0xff, 0xff, 0xff, 0, 0])
        let pingRewritten = StreamAdmission.advertise(100, inFirstFrameOf: &ping, at: 0)
        #expect(!pingRewritten)
        #expect(ping == http2Frame(type: 6, flags: 0, stream: 0, [0, 3, 0xff, 0xff, 0xff, 0xff, 0, 0]))
    }
}
