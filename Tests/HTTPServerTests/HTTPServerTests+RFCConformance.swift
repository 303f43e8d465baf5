import Testing

@testable import HTTPServer

/// RFC 9112 details over real loopback sockets: absolute-form targets, Host syntax, unrepresentable chunk sizes.
/// In the serialized HTTPServerTests: servers running beside its descriptor-count tests would change the counts.
extension HTTPServerTests {
    /// An absolute-form target is served as its origin-form, on a connection that stays open.
    @Test func absoluteFormTarget_isServedAsOriginForm() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("POST", "http://127.0.0.1:8080/items/7?x=1", body: "abc"))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["X-Path"] == "/items/7")
        #expect(response.text == "abc")
        try client.send(request("GET", "/after"))
        #expect(try client.readResponse().headers["X-Path"] == "/after")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// An invalid Host value, and an absolute-form target with an invalid authority, get 400 and the connection
    /// is closed.
    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a:b:c\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: example.com:http\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: example.com:\r\n\r\n",
        "GET http://a:b:c/ HTTP/1.1\r\nHost: test\r\n\r\n",
        "GET http://user@test/ HTTP/1.1\r\nHost: test\r\n\r\n",
    ])
    func invalidHost_isRefusedAndCloses(raw: String) async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(raw + request("GET", "/never"))
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.text.contains(#""code":"BAD_REQUEST""#))
        #expect(try client.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A chunk size of 21 hex digits is a framing error (400, closed), not a large body (413).
    @Test func unrepresentableChunkSize_isBadRequest() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(
            "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n100000000000000000000\r\n"
        )
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(
            response.text
                == #"{"error":{"code":"BAD_REQUEST","message":"invalid chunk size: too large to represent"}}"#
        )
        #expect(try client.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
