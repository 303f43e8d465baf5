import Testing

/// The HTTP-level rows of the contract's error table, written byte by byte with `sendRaw`: malformed requests,
/// limits, content types, transfer codings and versions. Each answer is JSON with the contract's status and code.
@Suite struct HTTPErrorTests {
    /// Malformed requests get 400 BAD_REQUEST and the connection is closed.
    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /health\r\n\r\n",
        "GET  /health HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        "POST /query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n",
    ])
    func malformedRequest_isBadRequestAndCloses(raw: String) throws {
        let client = try SharedSqlited.get().makeClient()
        try client.sendRaw(raw)
        let response = try client.readResponse(requestMethod: "POST")
        expectError(response, ExpectedError(status: 400, code: "BAD_REQUEST"))
        #expect(response.closesConnection)
        #expect(try client.readUntilClosed().isEmpty)
    }

    /// A Content-Length over 10 MiB is refused with 413 before the body is sent.
    @Test func oversizedContentLength_is413WithoutBody() throws {
        let client = try SharedSqlited.get().makeClient()
        let length = 10 * 1024 * 1024 + 1
        try client.sendRaw(
            "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
        )
        // No body byte was sent: the answer arrives anyway.
        let response = try client.readResponse(requestMethod: "POST")
        expectError(response, ExpectedError(status: 413, code: "PAYLOAD_TOO_LARGE"))
    }

    /// A chunked body growing past 10 MiB is refused with 413.
    @Test func oversizedChunkedBody_is413() throws {
        let client = try SharedSqlited.get().makeClient()
        try client.sendRaw(
            "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        let size = 10 * 1024 * 1024 + 16
        try client.sendRaw(String(size, radix: 16) + "\r\n")
        // The server may answer before reading it all; a failed send is then expected, the answer is what counts.
        try? client.sendRaw([UInt8](repeating: UInt8(ascii: " "), count: size))
        let response = try client.readResponse(requestMethod: "POST")
        expectError(response, ExpectedError(status: 413, code: "PAYLOAD_TOO_LARGE"))
    }

    /// A request target over 8 KiB is 414.
    @Test func longTarget_is414() throws {
        let client = try SharedSqlited.get().makeClient()
        let path = "/schema/" + String(repeating: "a", count: 8 * 1024 + 10)
        let response = try client.get(path)
        expectError(response, ExpectedError(status: 414, code: "URI_TOO_LONG"))
    }

    /// A body with a content type other than JSON is 415, on every POST endpoint; JSON variants are accepted.
    @Test(arguments: ["/query", "/update", "/batch", "/transaction"])
    func wrongContentType_is415(path: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let body =
            path == "/query" || path == "/update" ? #"{"sql": "SELECT 1"}"# : #"{"statements": [{"sql": "SELECT 1"}]}"#
        for contentType in ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json"] {
            let response = try client.postJSON(path, text: body, headers: [("Content-Type", contentType)])
            expectError(response, ExpectedError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE"))
        }
        for contentType in [
            "application/json", "Application/JSON", "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
        ] {
            let response = try client.postJSON(path, text: body, headers: [("Content-Type", contentType)])
            #expect(response.status == 200, "\(contentType): \(response.bodyText)")
        }
        let untyped = try client.request(method: "POST", path: path, body: Array(body.utf8))
        #expect(untyped.status == 200, "no Content-Type: \(untyped.bodyText)")
    }

    /// A header section over the limit is 431.
    @Test func hugeHeader_is431() throws {
        let client = try SharedSqlited.get().makeClient()
        let response = try client.get("/health", headers: [("X-Big", String(repeating: "b", count: 20 * 1024))])
        expectError(response, ExpectedError(status: 431, code: "HEADERS_TOO_LARGE"))
    }

    /// More than 100 header fields is 431.
    @Test func tooManyHeaderFields_is431() throws {
        let client = try SharedSqlited.get().makeClient()
        let headers = (0..<120).map { ("X-Field-\($0)", "v") }
        let response = try client.get("/health", headers: headers)
        expectError(response, ExpectedError(status: 431, code: "HEADERS_TOO_LARGE"))
    }

    /// A transfer coding other than chunked is 501.
    @Test(arguments: ["gzip", "gzip, chunked", "identity"])
    func unknownTransferCoding_is501(coding: String) throws {
        let client = try SharedSqlited.get().makeClient()
        try client.sendRaw(
            "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: \(coding)\r\n\r\n"
                + "0\r\n\r\n"
        )
        let response = try client.readResponse(requestMethod: "POST")
        expectError(response, ExpectedError(status: 501, code: "NOT_IMPLEMENTED"))
    }

    /// An HTTP major version other than 1 is 505; HTTP/1.2 is served as 1.1.
    @Test func httpVersion_majorOtherThanOneIs505() throws {
        let client = try SharedSqlited.get().makeClient()
        try client.sendRaw("GET /health HTTP/2.0\r\nHost: x\r\n\r\n")
        expectError(try client.readResponse(), ExpectedError(status: 505, code: "HTTP_VERSION_NOT_SUPPORTED"))

        let other = try SharedSqlited.get().makeClient()
        try other.sendRaw("GET /health HTTP/1.2\r\nHost: x\r\n\r\n")
        let response = try other.readResponse()
        #expect(response.status == 200)
        #expect(response.version == "HTTP/1.1")
    }
}
