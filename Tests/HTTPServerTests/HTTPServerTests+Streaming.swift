import Dispatch
import Foundation
import Synchronization
import Testing

@testable import HTTPServer

/// Streamed bodies as the service uses them for NDJSON and CSV: the head leaves with the first piece (a producer
/// failing before it answers otherwise), and a client that stops reading is cut at the stall timeout.
extension HTTPServerTests {
    /// A producer that throws `HTTPResponseReplacement` before writing gets its replacement sent, whole, and the
    /// connection serves the next request.
    @Test func streamedResponse_replacedBeforeItsFirstPiece() async throws {
        let handler = ClosureHTTPHandler { request in
            HTTPResponse(
                status: .ok,
                headers: ["Content-Type": "text/csv"],
                body: .stream { writer in
                    if request.path == "/fail" {
                        throw HTTPResponseReplacement(
                            HTTPResponse(
                                status: .badRequest,
                                headers: ["Content-Type": "application/json; charset=utf-8"],
                                body: .bytes(
                                    Array(#"{"error":{"code":"SQLITE_ERROR","message":"no such table"}}"#.utf8)
                                )
                            )
                        )
                    }
                    try writer.write("a,b\r\n")
                }
            )
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("GET", "/fail"))
        let failed = try client.readResponse()
        #expect(failed.status == 400)
        #expect(failed.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(failed.headers["Content-Length"] != nil)
        #expect(failed.text.contains("no such table"))
        try client.send(request("GET", "/ok"))
        let streamed = try client.readResponse()
        #expect(streamed.status == 200)
        #expect(streamed.headers["Transfer-Encoding"] == "chunked")
        #expect(streamed.text == "a,b\r\n")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A producer that returns without writing sends its head and an empty chunked body.
    @Test func streamedResponse_withoutPieces_isAnEmptyBody() async throws {
        let handler = ClosureHTTPHandler { _ in HTTPResponse(status: .ok, body: .stream { _ in }) }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        let response = try client.readResponse()
        #expect(response.status == 200 && response.text.isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A client that reads nothing of a streamed body is cut at `streamStallTimeout` (shorter than the send
    /// timeout): its connection closes and the producer's blocked write fails with `.streamStalled`, at once.
    @Test func streamedResponse_stalledClientIsCutAtTheStallTimeout() async throws {
        let failure = Mutex<HTTPServerError?>(nil)
        let done = DispatchSemaphore(value: 0)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let handler = ClosureHTTPHandler { _ in
            HTTPResponse(
                status: .ok,
                body: .stream { writer in
                    defer { done.signal() }
                    do {
                        while true { try writer.write(chunk) }
                    } catch let error as HTTPServerError {
                        failure.withLock { $0 = error }
                        throw error
                    }
                }
            )
        }
        var limits = HTTPLimits()
        limits.maxPendingOutput = 64 * 1024
        limits.streamStallTimeout = .milliseconds(300)
        limits.sendTimeout = .seconds(60)
        let server = try makeServer(limits: limits, handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(failure.withLock { $0?.code } == .streamStalled)
        #expect(await eventually { server.openConnectionCount == 0 })
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
