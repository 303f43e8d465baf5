import Synchronization
import Testing

@testable import HTTPServer

/// `HTTPBodyWriter` hands each non-empty piece of a streamed body to its sink, in order, as bytes or UTF-8 text, and
/// passes the sink's failure on to the producer.
@Suite struct HTTPBodyWriterTests {
    /// What a sink was given, piece by piece.
    final class Pieces: Sendable {
        let received = Mutex<[[UInt8]]>([])
        var all: [[UInt8]] { received.withLock { $0 } }
    }

    @Test func pieces_reachTheSinkInOrder() throws {
        let pieces = Pieces()
        let writer = HTTPBodyWriter.forwarding { bytes in pieces.received.withLock { $0.append(bytes) } }
        try writer.write([1, 2, 3])
        try writer.write("héllo")
        try writer.write([0])
        #expect(pieces.all == [[1, 2, 3], Array("héllo".utf8), [0]])
    }

    /// An empty piece sends nothing: the sink is not called (so a chunked body is never ended early by a zero-size
    /// chunk).
    @Test func anEmptyPiece_isNotSent() throws {
        let pieces = Pieces()
        let writer = HTTPBodyWriter.forwarding { bytes in pieces.received.withLock { $0.append(bytes) } }
        try writer.write([])
        try writer.write("")
        #expect(pieces.all.isEmpty)
        try writer.write("x")
        #expect(pieces.all == [[UInt8(ascii: "x")]])
    }

    /// The sink's error reaches the producer as thrown, for bytes and text alike.
    @Test func theSinksError_isThrownToTheProducer() {
        let writer = HTTPBodyWriter.forwarding { _ in throw HTTPServerError.connectionClosed }
        #expect(throws: HTTPServerError.connectionClosed) { try writer.write([1]) }
        #expect(throws: HTTPServerError.connectionClosed) { try writer.write("a") }
        // Nothing to send, nothing to fail.
        #expect(throws: Never.self) { try writer.write([]) }
    }

    /// A writer can forward to another writer, as a producer run outside a connection does.
    @Test func aWriter_canForwardToAnother() throws {
        let pieces = Pieces()
        let inner = HTTPBodyWriter.forwarding { bytes in pieces.received.withLock { $0.append(bytes) } }
        let outer = HTTPBodyWriter.forwarding { bytes in try inner.write(bytes.reversed()) }
        try outer.write([1, 2])
        #expect(pieces.all == [[2, 1]])
    }

    @Test func aReplacement_carriesItsResponse() {
        let replacement = HTTPResponseReplacement(HTTPResponse(status: .notFound, body: .bytes(Array("gone".utf8))))
        #expect(replacement.response.status == .notFound)
        guard case .bytes(let body) = replacement.response.body else {
            Issue.record("the replacement's body is not bytes")
            return
        }
        #expect(body == Array("gone".utf8))
    }
}
