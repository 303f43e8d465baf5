import Testing

@testable import HTTPServer

@Suite struct HTTP2SessionTests {
    /// A frame: 24-bit length, type, flags, 31-bit stream id, payload.
    private func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + [UInt8(stream >> 24), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// HPACK from the static table: `:method POST`, `:scheme http`, `:path /`, `:authority a`.
    private let postHeaders: [UInt8] = [0x83, 0x86, 0x84, 0x41, 0x01, UInt8(ascii: "a")]

    private func feed(_ session: HTTP2Session, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    @Test func aStreamWithHeadersAndBodyCompletes() throws {
        let session = HTTP2Session(maxConcurrentStreams: 100)
        try feed(session, HTTP2Preface.bytes + frame(type: 4, flags: 0, stream: 0))
        #expect(session.completed.isEmpty)
        try feed(session, frame(type: 1, flags: 0x4, stream: 1, postHeaders))
        #expect(session.completed.isEmpty)
        try feed(session, frame(type: 0, flags: 0x1, stream: 1, Array("{}".utf8)))
        let stream = try #require(session.completed.first)
        #expect(session.completed.count == 1)
        #expect(stream.streamID == 1)
        #expect(stream.headers.map(\.name) == [":method", ":scheme", ":path", ":authority"])
        #expect(stream.headers.map(\.value) == ["POST", "http", "/", "a"])
        #expect(stream.body == Array("{}".utf8))
        // The server's SETTINGS (max concurrent streams) and the ACK of the client's go out.
        #expect(try session.takeOutput().count == 9 + 6 + 9)
    }

    @Test func garbageInsteadOfThePrefaceIsAProtocolError() throws {
        let session = HTTP2Session(maxConcurrentStreams: 100)
        #expect(throws: HTTP2Session.ProtocolError.self) {
            try feed(session, Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        }
    }
}
