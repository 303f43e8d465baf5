import Testing

@Suite struct HTTPTestClientTests {
    /// A Content-Length response is read whole; the raw body keeps 64-bit integers textually and as JSON.
    @Test func request_readsContentLengthBodyAndKeepsInt64Exact() throws {
        let server = try LoopbackTestServer { _ in
            .send(
                LoopbackTestServer.response(
                    headers: [("Content-Type", "application/json")],
                    body: #"{"big": 9223372036854775807, "real": 1.0}"#
                ),
                close: false
            )
        }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        let response = try client.postJSON("/query", .object(["sql": .string("SELECT 1")]))
        #expect(response.status == 200)
        #expect(response.reason == "OK")
        #expect(response.header("content-type") == "application/json")
        #expect(response.bodyText.contains("9223372036854775807"))
        let json = try response.json()
        #expect(json["big"]?.int64Value == Int64.max)
        #expect(json["real"] == .number("1.0"))
    }

    /// The request carries Host, Content-Type and Content-Length, and the body arrives intact.
    @Test func request_sendsHostContentTypeAndLength() throws {
        let server = try LoopbackTestServer { _ in .send(LoopbackTestServer.response(body: "{}"), close: false) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        _ = try client.postJSON("/batch", text: #"{"script": "SELECT 'é'"}"#)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/batch")
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Content-Length") == "\(#"{"script": "SELECT 'é'"}"#.utf8.count)")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"script": "SELECT 'é'"}"#)
    }

    /// A chunked body is reassembled; chunk extensions are ignored and trailers collected.
    @Test func request_decodesChunkedBodyWithTrailers() throws {
        let raw =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nX-Checksum: abc\r\n\r\n"
        let server = try LoopbackTestServer { _ in .send(Array(raw.utf8), close: false) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        let response = try client.get("/")
        #expect(response.bodyText == "hello world!")
        #expect(response.trailers.first?.name == "X-Checksum")
        #expect(response.trailers.first?.value == "abc")
        // The connection stays usable after the chunked body.
        #expect(try client.get("/again").bodyText == "hello world!")
        #expect(client.connectionsOpened == 1)
    }

    /// Keep-alive: consecutive requests share one connection.
    @Test func request_reusesKeepAliveConnection() throws {
        let server = try LoopbackTestServer { request in
            .send(LoopbackTestServer.response(body: "\(request.indexOnConnection)"), close: false)
        }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect(try client.get("/a").bodyText == "0")
        #expect(try client.get("/b").bodyText == "1")
        #expect(try client.get("/c").bodyText == "2")
        #expect(client.connectionsOpened == 1)
        #expect(server.connectionsAccepted == 1)
    }

    /// `Connection: close` from the server makes the next request open a new connection.
    @Test func request_honoursConnectionClose() throws {
        let server = try LoopbackTestServer { _ in
            .send(LoopbackTestServer.response(headers: [("Connection", "close")], body: "bye"), close: true)
        }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        let first = try client.get("/")
        #expect(first.closesConnection)
        #expect(!client.isConnected)
        #expect(try client.get("/").bodyText == "bye")
        #expect(client.connectionsOpened == 2)
        #expect(server.connectionsAccepted == 2)
    }

    /// A keep-alive connection the server closed while idle is replaced once, transparently.
    @Test func request_retriesOnceWhenIdleConnectionWasClosed() throws {
        // Answers without announcing the close, then closes: the client only notices on its next request.
        let server = try LoopbackTestServer { _ in .send(LoopbackTestServer.response(body: "ok"), close: true) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect(try client.get("/").bodyText == "ok")
        #expect(try client.get("/").bodyText == "ok")
        #expect(client.connectionsOpened == 2)
    }

    /// A server that never answers makes the request throw a timeout instead of hanging.
    @Test func request_timesOutWhenServerIsSilent() throws {
        let server = try LoopbackTestServer { _ in .silence }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port, timeoutSeconds: 0.3)
        #expect {
            try client.get("/")
        } throws: { error in
            if case TestSocket.SocketError.timedOut(let call) = error { return call == "recv" }
            return false
        }
    }

    /// A connection closed before any response byte is reported as such, not as an empty response.
    @Test func request_reportsConnectionClosedWithoutResponse() throws {
        let server = try LoopbackTestServer { _ in .close }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect {
            try client.get("/")
        } throws: { error in
            if case HTTPTestClient.ClientError.connectionClosed(let count) = error { return count == 0 }
            return false
        }
    }

    /// Raw pipelined requests are answered in order and read one response at a time.
    @Test func sendRaw_readsPipelinedResponsesInOrder() throws {
        let server = try LoopbackTestServer { request in
            .send(LoopbackTestServer.response(body: request.target), close: false)
        }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        try client.sendRaw("GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().bodyText == "/first")
        #expect(try client.readResponse().bodyText == "/second")
    }

    /// A HEAD response has no body even with Content-Length; 1xx interim responses are skipped unless asked for.
    @Test func readResponse_handlesHeadAndInterimResponses() throws {
        let raw =
            "HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
            + "HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nhi"
        let server = try LoopbackTestServer { _ in .send(Array(raw.utf8), close: false) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        try client.sendRaw("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(requestMethod: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        let interim = try client.readResponse(includeInterim: true)
        #expect(interim.status == 100)
        let created = try client.readResponse()
        #expect(created.status == 201)
        #expect(created.bodyText == "hi")
    }

    /// A body without Content-Length or chunked coding runs to connection close (RFC 9112 §6.3 rule 8).
    @Test func readResponse_readsBodyUntilClose() throws {
        let raw = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end"
        let server = try LoopbackTestServer { _ in .send(Array(raw.utf8), close: true) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        let response = try client.get("/")
        #expect(response.bodyText == "until the end")
        #expect(!client.isConnected)
    }

    /// readUntilClosed returns the bytes left after the last response once the server closes (and times out if
    /// it never does), so tests can assert that a connection was closed.
    @Test func readUntilClosed_returnsTrailingBytesAtClose() throws {
        let raw = Array((String(decoding: LoopbackTestServer.response(body: "x"), as: UTF8.self) + "junk").utf8)
        let server = try LoopbackTestServer { _ in .send(raw, close: true) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        try client.sendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().bodyText == "x")
        #expect(try client.readUntilClosed() == Array("junk".utf8))
        #expect(!client.isConnected)

        let silent = try LoopbackTestServer { _ in .silence }
        let waiting = HTTPTestClient(host: "127.0.0.1", port: silent.port, timeoutSeconds: 0.3)
        try waiting.sendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(throws: TestSocket.SocketError.self) { try waiting.readUntilClosed() }
    }

    /// A malformed status line is an error, not a guess.
    @Test func readResponse_rejectsMalformedStatusLine() throws {
        let server = try LoopbackTestServer { _ in .send(Array("HTTP/1.1 2OO OK\r\n\r\n".utf8), close: true) }
        let client = HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect(throws: HTTPTestClient.ClientError.self) { try client.get("/") }
    }

    /// Base URLs as printed by sqlited parse into host and port, IPv6 included.
    @Test func initBaseURL_parsesHostAndPort() throws {
        let client = try HTTPTestClient(baseURL: "http://127.0.0.1:8080")
        #expect(client.host == "127.0.0.1")
        #expect(client.port == 8080)
        let v6 = try HTTPTestClient(baseURL: "http://[::1]:9000/")
        #expect(v6.host == "[::1]")
        #expect(v6.port == 9000)
        #expect(throws: HTTPTestClient.ClientError.self) { try HTTPTestClient(baseURL: "https://x:1") }
    }
}
