import Foundation
import Testing

@testable import HTTPServer

/// The server's own refusals (``HTTPRejection``): the server decides the status and closes, the handler decides the
/// body (``HTTPHandler/response(to:)``), and a handler that decides nothing gets plain text.
@Suite struct HTTPRejectionTests {
    /// A handler whose refusals say "refused" with the code in a field of their own, and claim a status the server
    /// must not send.
    private struct MarkingHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: .ok, body: .bytes(Array("ok".utf8)))
        }

        func response(to rejection: HTTPRejection) -> HTTPResponse {
            HTTPResponse(
                status: .ok,
                headers: ["Content-Type": "text/x-refusal", "X-Refusal-Code": rejection.code],
                body: .bytes(Array("refused: \(rejection.message)".utf8))
            )
        }
    }

    /// A handler whose refusal bodies are streamed, which the server cannot send for a refusal.
    private struct StreamingRefusalHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: .ok)
        }

        func response(to rejection: HTTPRejection) -> HTTPResponse {
            HTTPResponse(status: rejection.status, body: .stream { writer in try writer.write("never") })
        }
    }

    /// Checks that a malformed request is answered with the handler's body and fields, the rejection's status, and
    /// a closed connection.
    @Test func malformedRequest_getsTheHandlersBody() async throws {
        let server = try makeServer(handler: MarkingHandler())
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("GET / HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["X-Refusal-Code"] == "BAD_REQUEST")
        #expect(response.headers["Content-Type"] == "text/x-refusal")
        #expect(response.text == "refused: both Content-Length and Transfer-Encoding")
        #expect(response.headers["Connection"] == "close")
        #expect(try client.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Checks that a connection over the limit gets the handler's body with the server's `Retry-After`.
    @Test func refusedConnection_getsTheHandlersBodyAndRetryAfter() async throws {
        var limits = HTTPLimits()
        limits.maxConnections = 1
        let server = try makeServer(limits: limits, handler: MarkingHandler())
        let address = try #require(server.boundAddresses.first)
        let first = try TestClient(address)
        try first.send(request())
        #expect(try first.readResponse().status == 200)
        let second = try TestClient(address)
        let refused = try second.readResponse()
        #expect(refused.status == 503)
        #expect(refused.headers["X-Refusal-Code"] == "UNAVAILABLE")
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.text == "refused: server busy or shutting down, retry later")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Checks the default: the code and the message as plain text.
    @Test func defaultHandler_answersPlainText() async throws {
        let server = try makeServer(handler: ClosureHTTPHandler { _ in HTTPResponse(status: .ok) })
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("GET / HTTP/1.1\r\nHost: test\r\nContent-Length: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.text.hasPrefix("BAD_REQUEST: "))
        #expect(response.text.hasSuffix("\n"))
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Checks that a streamed refusal body is replaced by the plain-text one (a refusal is sent whole, at once).
    @Test func streamedRefusalBody_isReplacedByPlainText() async throws {
        let server = try makeServer(handler: StreamingRefusalHandler())
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("GET / HTTP/1.1\r\nHost: test\r\nContent-Length: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.text.hasPrefix("BAD_REQUEST: "))
        #expect(response.headers["Content-Length"] != nil)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Checks the value itself: its plain-text response.
    @Test func plainTextResponse_isCodeAndMessage() throws {
        let rejection = HTTPRejection(status: .uriTooLong, code: "URI_TOO_LONG", message: "too long")
        let response = rejection.plainTextResponse
        #expect(response.status == .uriTooLong)
        guard case .bytes(let body) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "URI_TOO_LONG: too long\n")
    }
}
