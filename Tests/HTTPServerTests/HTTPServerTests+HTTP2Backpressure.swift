import Glibc
import Synchronization
import Testing

@testable import HTTPServer

/// HTTP/2 over real loopback sockets, at the HTTPServer level: output bounded for a client that stops reading. In
/// the serialized ``HTTPServerTests``, whose descriptor-counting tests a server running alongside would disturb.
extension HTTPServerTests {
    /// A client that opens the widest windows, asks for 20 responses of 1 MiB on one connection and never reads:
    /// the server's unsent output for the connection stays within its bound (the rest waits in the session).
    @Test func http2ClientThatNeverReads_keepsServerOutputBounded() async throws {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1024 * 1024)
        let answered = Mutex(0)
        let handler = ClosureHTTPHandler { _ in
            answered.withLock { $0 += 1 }
            return HTTPResponse(status: .ok, body: .bytes(body))
        }
        var limits = HTTPLimits()
        limits.maxPendingOutput = 64 * 1024
        let server = try makeServer(limits: limits, handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        // SETTINGS_INITIAL_WINDOW_SIZE 2^31 - 1, and the connection window raised to it.
        var opening = HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0, [0, 4, 0x7F, 0xFF, 0xFF, 0xFF])
        opening += http2Frame(type: 8, flags: 0, stream: 0, [0x7F, 0xFF, 0x00, 0x00])
        for index in 0..<20 {
            opening += http2Frame(type: 1, flags: 0x5, stream: UInt32(1 + 2 * index), http2PostHeaders)
        }
        try client.send(opening)
        #expect(await eventually { answered.withLock { $0 } == 20 })
        #expect(
            await eventually {
                server.connectionStatistics().contains { $0.pendingOutput >= limits.maxPendingOutput }
            }
        )
        try await Task.sleep(for: .milliseconds(500))
        let statistics = try #require(server.connectionStatistics().first)
        // The bound, plus what one pull from the session may bring past it (a few frames of at most 16 KiB).
        #expect(statistics.maxObservedPendingOutput <= limits.maxPendingOutput + 64 * 1024)
        await server.shutdown(gracePeriod: .milliseconds(100))
        #expect(server.openConnectionCount == 0)
    }
}

extension HTTPServerTests {
    /// One HTTP/2 connection with 12 slow streams takes at most its share of the handler threads at once; the
    /// others wait and are all answered.
    @Test func http2Connection_takesAtMostItsShareOfHandlerThreads() async throws {
        let running = Mutex((now: 0, most: 0, done: 0))
        let handler = ClosureHTTPHandler { _ in
            running.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            usleep(50_000)
            running.withLock {
                $0.now -= 1
                $0.done += 1
            }
            return HTTPResponse(status: .ok, body: .bytes(Array("ok".utf8)))
        }
        var limits = HTTPLimits()
        limits.http2.maxStreamsOnHandlerThreads = 3
        let server = try makeServer(limits: limits, handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        var opening = HTTP2Preface.bytes + http2Frame(type: 4, flags: 0, stream: 0)
        for index in 0..<12 {
            opening += http2Frame(type: 1, flags: 0x5, stream: UInt32(1 + 2 * index), http2PostHeaders)
        }
        try client.send(opening)
        #expect(await eventually { running.withLock { $0.done } == 12 })
        let most = running.withLock { $0.most }
        #expect(most >= 2, "streams of one connection run concurrently")
        #expect(most <= 3, "at most the connection's share at once, was \(most)")
        await server.shutdown(gracePeriod: .milliseconds(100))
    }
}
