import CNGHTTP2
import Testing

@testable import HTTPServer

@Suite struct HTTP2PrefaceTests {
    private func match(_ text: String) -> HTTP2Preface.Match {
        Array(text.utf8).withUnsafeBytes { HTTP2Preface.match($0) }
    }

    @Test func theWholePrefaceIsHTTP2() {
        #expect(match("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .http2)
        // Frames after the preface do not change the verdict.
        #expect(match("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u{0}\u{0}\u{0}\u{4}") == .http2)
    }

    @Test func aProperPrefixWaitsForMore() {
        #expect(match("") == .needMore)
        #expect(match("P") == .needMore)
        #expect(match("PRI * HTTP/2.0\r\n\r\nSM\r\n\r") == .needMore)
    }

    @Test func anythingElseIsHTTP1() {
        #expect(match("GET / HTTP/1.1\r\n") == .http1)
        #expect(match("POST") == .http1)
        #expect(match("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n") == .http1)
        #expect(match("PRI * HTTP/1.1\r\n") == .http1)
    }

    /// The preface constant is the one libnghttp2 expects.
    @Test func prefaceMatchesLibnghttp2() {
        #expect(HTTP2Preface.bytes == Array(NGHTTP2_CLIENT_MAGIC.utf8))
        #expect(HTTP2Preface.bytes.count == Int(NGHTTP2_CLIENT_MAGIC_LEN))
    }
}

/// The CNGHTTP2 target links the system libnghttp2 and a server session can be driven in memory
/// (`mem_recv` / `mem_send`), the way the event loops will drive it.
@Suite struct NGHTTP2LinkTests {
    @Test func systemLibraryIsAtLeast1_52() throws {
        let info = try #require(nghttp2_version(0x01_34_00))
        #expect(info.pointee.version_num >= 0x01_34_00)
    }

    @Test func serverSessionAnswersThePrefaceWithSettings() throws {
        var callbacks: OpaquePointer?
        #expect(nghttp2_session_callbacks_new(&callbacks) == 0)
        defer { nghttp2_session_callbacks_del(callbacks) }
        var session: OpaquePointer?
        #expect(nghttp2_session_server_new(&session, callbacks, nil) == 0)
        defer { nghttp2_session_del(session) }

        // The client preface, then an empty SETTINGS frame (length 0, type 4, flags 0, stream 0).
        let input = HTTP2Preface.bytes + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        let consumed = input.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        #expect(consumed == input.count)
        #expect(nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0) == 0)

        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            #expect(length >= 0)
            guard length > 0, let data else { break }
            output += UnsafeBufferPointer(start: data, count: length)
        }
        // Split the output into frame headers (24-bit length, type, flags): libnghttp2 sends its ACK of
        // the client's SETTINGS and the server's own SETTINGS, in either order, and nothing else.
        let frames = http2Frames(output)
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.type == 4 })
        #expect(frames.map(\.flags).sorted() == [0, 1])
    }
}
