import Testing

@testable import HTTPServer

/// Splits `output` into (type, flags, stream, payload) frames; every byte belongs to one.
func http2Frames(_ output: [UInt8]) -> [(type: UInt8, flags: UInt8, stream: UInt8, payload: [UInt8])] {
    var frames: [(type: UInt8, flags: UInt8, stream: UInt8, payload: [UInt8])] = []
    var offset = 0
    while offset + 9 <= output.count {
        let length = Int(output[offset]) << 16 | Int(output[offset + 1]) << 8 | Int(output[offset + 2])
        guard offset + 9 + length <= output.count else { break }
        frames.append(
            (
                output[offset + 3], output[offset + 4], output[offset + 8],
                Array(output[(offset + 9)..<(offset + 9 + length)])
            )
        )
        offset += 9 + length
    }
    #expect(offset == output.count)
    return frames
}

/// A frame: 24-bit length, type, flags, 31-bit stream id, payload.
func http2Frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
    let length = payload.count
    return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
        + [UInt8(stream >> 24), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
        + payload
}

/// HPACK from the static table: `:method POST`, `:scheme http`, `:path /`, `:authority a`.
let http2PostHeaders: [UInt8] = [0x83, 0x86, 0x84, 0x41, 0x01, UInt8(ascii: "a")]

@Suite struct HTTP2SessionTests {
    private func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        http2Frame(type: type, flags: flags, stream: stream, payload)
    }

    private let postHeaders = http2PostHeaders

    private func feed(_ session: HTTP2Session, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    private func makeSession(maxConcurrentStreams: Int = 100) -> HTTP2Session {
        var limits = HTTPLimits()
        limits.http2.maxConcurrentStreams = maxConcurrentStreams
        return HTTP2Session(limits: limits)
    }

    /// The requests among the events of the last `receive`.
    private func requests(
        _ session: HTTP2Session
    ) -> [(streamID: Int32, headers: [(name: String, value: String)], body: [UInt8])] {
        session.events.compactMap { event in
            guard case .request(let streamID, let head, let body, _) = event else { return nil }
            return (streamID, head.fields, body)
        }
    }

    @Test func aStreamWithHeadersAndBodyCompletes() throws {
        let session = makeSession()
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        #expect(session.events.isEmpty)
        try feed(session, frame(type: 1, flags: 0x4, stream: 1, postHeaders))
        #expect(session.events.isEmpty)
        try feed(session, frame(type: 0, flags: 0x1, stream: 1, Array("{}".utf8)))
        let stream = try #require(requests(session).first)
        #expect(session.events.count == 1)
        #expect(stream.streamID == 1)
        #expect(stream.headers.map(\.name) == [":method", ":scheme", ":path", ":authority"])
        #expect(stream.headers.map(\.value) == ["POST", "http", "/", "a"])
        #expect(stream.body == Array("{}".utf8))
        // The server's SETTINGS (max concurrent streams, initial window, header list size), the connection's
        // WINDOW_UPDATE (to the initial window) and the ACK of the client's SETTINGS go out.
        let frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.type).sorted() == [4, 4, 8])
        #expect(frames[0].type == 4 && frames[0].flags == 0 && frames[0].payload.count == 18)
        #expect(frames.contains { $0.type == 4 && $0.flags == 1 })
    }

    @Test func garbageInsteadOfThePrefaceIsAProtocolError() throws {
        let session = makeSession()
        #expect(throws: HTTP2Session.ProtocolError.self) {
            try feed(session, Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        }
    }

    @Test func aResponseGoesOutAsHeadersThenDataWithEndStream() throws {
        let session = makeSession()
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        try feed(session, frame(type: 1, flags: 0x5, stream: 1, postHeaders))
        #expect(requests(session).map(\.streamID) == [1])
        _ = try session.takeOutput()
        try session.respond(
            streamID: 1,
            status: 200,
            headers: [("content-type", "application/json")],
            body: Array("{\"ok\":1}".utf8)
        )
        let frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.type) == [1, 0])
        #expect(frames.map(\.stream) == [1, 1])
        #expect(frames[0].flags & 0x4 != 0)  // END_HEADERS
        #expect(frames[0].payload.first == 0x88)  // HPACK static index 8: :status 200
        #expect(frames[1].flags & 0x1 != 0)  // END_STREAM
        #expect(frames[1].payload == Array("{\"ok\":1}".utf8))
    }

    @Test func anEmptyBodyEndsTheStreamWithTheHeaders() throws {
        let session = makeSession()
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        try feed(session, frame(type: 1, flags: 0x5, stream: 1, postHeaders))
        _ = try session.takeOutput()
        try session.respond(streamID: 1, status: 204, headers: [], body: [])
        let output = try session.takeOutput()
        // One HEADERS frame (:status 204 is static index 9: one byte) with END_STREAM and END_HEADERS.
        #expect(output == [0, 0, 1, 1, 0x5, 0, 0, 0, 1, 0x89])
    }

    /// A body larger than the peer's window stops at the window and resumes after WINDOW_UPDATE.
    @Test func aLargeBodyWaitsForTheClientsWindow() throws {
        let session = makeSession()
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        try feed(session, frame(type: 1, flags: 0x5, stream: 1, postHeaders))
        _ = try session.takeOutput()
        try session.respond(streamID: 1, status: 200, headers: [], body: [UInt8](repeating: 0x61, count: 100_000))
        let first = http2Frames(try session.takeOutput()).filter { $0.type == 0 }
        #expect(first.reduce(0) { $0 + $1.payload.count } == 65_535)
        #expect(first.allSatisfy { $0.flags & 0x1 == 0 })
        #expect(try session.takeOutput().isEmpty)
        // WINDOW_UPDATE for the connection and for stream 1: the rest goes out, the last with END_STREAM.
        let increment: [UInt8] = [0, 0x01, 0, 0]
        try feed(
            session,
            frame(type: 8, flags: 0, stream: 0, increment) + frame(type: 8, flags: 0, stream: 1, increment)
        )
        let rest = http2Frames(try session.takeOutput()).filter { $0.type == 0 }
        #expect(rest.reduce(0) { $0 + $1.payload.count } == 100_000 - 65_535)
        #expect(rest.last?.flags == 0x1)
    }

    /// A stream opened past SETTINGS_MAX_CONCURRENT_STREAMS is refused (RST_STREAM REFUSED_STREAM).
    @Test func aStreamPastTheLimitIsRefused() throws {
        let session = makeSession(maxConcurrentStreams: 1)
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        _ = try session.takeOutput()
        // Stream 1 stays open (no END_STREAM); stream 3 exceeds the limit of 1.
        try feed(
            session,
            frame(type: 1, flags: 0x4, stream: 1, postHeaders) + frame(type: 1, flags: 0x4, stream: 3, postHeaders)
        )
        let resets = http2Frames(try session.takeOutput()).filter { $0.type == 3 }
        #expect(resets.count == 1)
        #expect(resets.first?.stream == 3)
        #expect(resets.first?.payload == [0, 0, 0, 7])  // REFUSED_STREAM
    }
}
