import Testing

@testable import HTTPServer

/// A handler's response whose status is not a final response's (200...599) is the handler's mistake: the server
/// sends it as 500, framed as its body requires, and the connection goes on (``HTTPStatus/finalCode``).
@Suite struct HandlerStatusTests {
    /// Answers `/<code>` with that status and the body `body of <code>`, anything else with 200.
    private static let handler = ClosureHTTPHandler { request in
        guard let code = Int(request.path.dropFirst()) else {
            return HTTPResponse(status: .ok, body: .bytes(Array("ok".utf8)))
        }
        return HTTPResponse(status: HTTPStatus(code: code), body: .bytes(Array("body of \(code)".utf8)))
    }

    /// Checks, over a real socket, that codes 42, 101, 199 and 600 go out as 500 with the handler's body and a
    /// `Content-Length`, each followed on the same connection by a pipelined request answered 200.
    @Test(arguments: [42, 101, 199, 600])
    func aCodeNotOfAFinalResponse_isSentAs500AndTheConnectionGoesOn(code: Int) async throws {
        let server = try makeServer(handler: Self.handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("GET", "/\(code)") + request("GET", "/next"))
        let first = try client.readResponse()
        #expect(first.status == 500)
        #expect(first.text == "body of \(code)")
        #expect(first.headers["Content-Length"] == "\("body of \(code)".utf8.count)")
        let second = try client.readResponse()
        #expect(second.status == 200)
        #expect(second.text == "ok")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Checks that a final code is sent as the handler gave it.
    @Test(arguments: [200, 299, 418, 599])
    func aFinalCode_isSentAsGiven(code: Int) async throws {
        let server = try makeServer(handler: Self.handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("GET", "/\(code)"))
        let response = try client.readResponse()
        #expect(response.status == code)
        #expect(response.text == "body of \(code)")
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
