import Testing

@testable import HTTPServer

/// A streamed response body on an HTTP/2 session, in memory: DATA frames as the producer appends, within the
/// client's flow-control window (libnghttp2's deferred data provider), END_STREAM when it finishes, and the stall
/// reset.
@Suite struct HTTP2StreamedBodyTests {
    private func feed(_ session: HTTP2Session, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try session.receive($0) }
    }

    /// A session with stream 1 open (a POST received whole) and a client window of `window` bytes per stream.
    private func sessionWithStream(window: UInt32) throws -> HTTP2Session {
        let session = HTTP2Session(limits: HTTPLimits())
        let setting: [UInt8] = [0, 4] + withUnsafeBytes(of: window.bigEndian) { Array($0) }
        try feed(session, HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0, setting))
        try feed(session, http2Frame(type: 1, flags: 0x5, stream: 1, http2PostHeaders))
        _ = try session.takeOutput()
        return session
    }

    private func windowUpdate(stream: UInt32, _ increment: UInt32) -> [UInt8] {
        http2Frame(type: 8, flags: 0, stream: stream, withUnsafeBytes(of: increment.bigEndian) { Array($0) })
    }

    @Test func streamedBody_isSentAsProducedWithinTheWindow_thenEnds() throws {
        let session = try sessionWithStream(window: 100)
        let body = try #require(try session.respondStreamed(streamID: 1, status: 200, now: 0) { _ in })
        // Nothing produced yet: HEADERS only, the data provider deferred.
        var frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.type) == [1])
        #expect(frames[0].flags & 0x1 == 0)
        session.appendStreamed(Array(repeating: UInt8(ascii: "a"), count: 60), to: 1, now: 1)
        frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.type) == [0])
        #expect(frames[0].payload.count == 60 && frames[0].flags & 0x1 == 0)
        // More than the window: 40 bytes go, 80 wait in the stream's buffer.
        session.appendStreamed(Array(repeating: UInt8(ascii: "b"), count: 120), to: 1, now: 2)
        frames = http2Frames(try session.takeOutput())
        #expect(frames.map(\.payload.count) == [40])
        #expect(body.pending == 80)
        #expect(session.oldestStreamedProgress != nil)
        session.finishStreamed(1)
        #expect(http2Frames(try session.takeOutput()).isEmpty)
        try feed(session, windowUpdate(stream: 1, 1000))
        frames = http2Frames(try session.takeOutput()).filter { $0.type == 0 }
        #expect(frames.map(\.payload.count) == [80])
        #expect(((frames.last?.flags ?? 0) & 0x1) != 0)
        #expect(!session.hasActiveStreams)
    }

    @Test func stalledStreamedBody_isResetWithCancel_andItsWriterFails() throws {
        let session = try sessionWithStream(window: 10)
        let body = try #require(try session.respondStreamed(streamID: 1, status: 200, now: 0) { _ in })
        _ = try session.takeOutput()
        session.appendStreamed(Array(repeating: UInt8(ascii: "a"), count: 50), to: 1, now: 5)
        _ = try session.takeOutput()
        // Bytes have waited since the last progress: not stalled before it, stalled after.
        let progress = try #require(session.oldestStreamedProgress)
        #expect(session.resetStalledStreamedBodies(before: progress).isEmpty)
        #expect(session.resetStalledStreamedBodies(before: progress + 1) == [1])
        #expect(body.ended?.code == .streamStalled)
        let frames = http2Frames(try session.takeOutput())
        #expect(frames.contains { $0.type == 3 && $0.stream == 1 && $0.payload == [0, 0, 0, 8] })
    }

    @Test func resetByTheClient_endsTheStreamedBody() throws {
        let session = try sessionWithStream(window: 65535)
        let body = try #require(try session.respondStreamed(streamID: 1, status: 200, now: 0) { _ in })
        try feed(session, http2Frame(type: 3, flags: 0, stream: 1, [0, 0, 0, 8]))
        #expect(body.ended?.code == .connectionClosed)
        #expect(!session.hasActiveStreams)
    }
}
