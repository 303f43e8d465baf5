import Testing

@testable import HTTPServer

/// `ResponseHead` writes the status line, `Date`, the server's `Server`, the handler's fields less those the server
/// owns and those that would split the response, then the framing and connection fields (RFC 9112 §4, §6, §9.3).
@Suite struct ResponseHeadTests {
    /// The head's lines (without their CRLF, the blank line ending the head dropped), the `Date` line's value replaced
    /// by `<date>` after checking its form.
    private static func lines(
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = HTTPHeaders(),
        framing: ResponseHead.Framing = .contentLength(0),
        keepAlive: Bool = true,
        version: HTTPVersion = .http1_1,
        serverHeader: String? = nil
    ) -> [String] {
        var checked = ResponseFieldCache()
        let head = ResponseHead.serialize(
            status: status,
            headers: headers,
            framing: framing,
            keepAlive: keepAlive,
            version: version,
            serverHeader: serverHeader,
            checked: &checked
        )
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.hasSuffix("\r\n\r\n"))
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        // "…\r\n\r\n" ends with two empty pieces: the blank line and what follows it.
        #expect(lines.suffix(2) == ["", ""])
        lines.removeLast(2)
        return lines.map { line in
            guard line.hasPrefix("Date: ") else { return line }
            #expect(line.utf8.count == "Date: Sun, 06 Nov 1994 08:49:37 GMT".utf8.count && line.hasSuffix(" GMT"))
            return "Date: <date>"
        }
    }

    @Test func statusLine_isHTTP11WithTheCodeAndReason_thenDate() {
        #expect(Self.lines() == ["HTTP/1.1 200 OK", "Date: <date>", "Content-Length: 0"])
        #expect(Self.lines(status: .notFound).first == "HTTP/1.1 404 Not Found")
        #expect(Self.lines(status: HTTPStatus(code: 299)).first == "HTTP/1.1 299 Unknown")
        #expect(Self.lines(status: HTTPStatus(code: 200, reasonPhrase: "Fine")).first == "HTTP/1.1 200 Fine")
        // RFC 9112 §4: the reason may be empty, the space before it may not.
        #expect(Self.lines(status: HTTPStatus(code: 200, reasonPhrase: "")).first == "HTTP/1.1 200 ")
    }

    /// A handler's code that is not a final response's (200...599) is sent as 500 with its standard reason: a 1xx
    /// would be taken for an interim response, a code of other than three digits breaks the status line.
    @Test(arguments: [42, 0, -1, 100, 101, 199, 600, 999, 12_345])
    func statusLine_aCodeNotOfAFinalResponseIsSentAs500(code: Int) {
        #expect(Self.lines(status: HTTPStatus(code: code)).first == "HTTP/1.1 500 Internal Server Error")
        #expect(
            Self.lines(status: HTTPStatus(code: code, reasonPhrase: "Mine")).first
                == "HTTP/1.1 500 Internal Server Error"
        )
    }

    /// An HTTP/1.0 request is answered with an HTTP/1.1 status line (RFC 9110 §6.2: the server's own version).
    @Test func statusLine_saysHTTP11ForAnHTTP10Client() {
        #expect(Self.lines(version: .http1_0, serverHeader: nil).first == "HTTP/1.1 200 OK")
    }

    /// A reason phrase that could split the response (CR, LF, NUL) is replaced whole.
    @Test func statusLine_replacesAReasonThatIsNotAValidFieldValue() {
        let forged = HTTPStatus(code: 200, reasonPhrase: "OK\r\nSet-Cookie: a=b")
        #expect(Self.lines(status: forged) == ["HTTP/1.1 200 Unknown", "Date: <date>", "Content-Length: 0"])
        #expect(Self.lines(status: HTTPStatus(code: 200, reasonPhrase: "a\u{0}b")).first == "HTTP/1.1 200 Unknown")
        #expect(Self.lines(status: HTTPStatus(code: 200, reasonPhrase: "Très bien")).first == "HTTP/1.1 200 Très bien")
    }

    @Test(arguments: [
        (ResponseHead.Framing.none, [String]()),
        (.contentLength(0), ["Content-Length: 0"]),
        (.contentLength(1_234_567), ["Content-Length: 1234567"]),
        (.chunked, ["Transfer-Encoding: chunked"]),
        (.closeDelimited, []),
    ])
    func framing_writesItsOneField(framing: ResponseHead.Framing, fields: [String]) {
        #expect(Self.lines(framing: framing) == ["HTTP/1.1 200 OK", "Date: <date>"] + fields)
    }

    /// HTTP/1.1 is persistent by default; HTTP/1.0 must be told it stays open; either is told when it closes.
    @Test(arguments: [
        (true, HTTPVersion.http1_1, [String]()),
        (false, .http1_1, ["Connection: close"]),
        (true, .http1_0, ["Connection: keep-alive"]),
        (false, .http1_0, ["Connection: close"]),
    ])
    func connectionField_followsKeepAliveAndVersion(keepAlive: Bool, version: HTTPVersion, fields: [String]) {
        let lines = Self.lines(framing: .none, keepAlive: keepAlive, version: version)
        #expect(lines == ["HTTP/1.1 200 OK", "Date: <date>"] + fields)
    }

    /// The handler's fields come after `Date` and `Server`, in their order, names as given; the framing and
    /// connection fields come last.
    @Test func handlerFields_keepTheirOrderBetweenServerAndFraming() {
        let headers = HTTPHeaders([("content-type", "application/json"), ("Vary", "Accept"), ("X-Empty", "")])
        let lines = Self.lines(headers: headers, framing: .chunked, keepAlive: false, serverHeader: "sqlited")
        #expect(
            lines == [
                "HTTP/1.1 200 OK", "Date: <date>", "Server: sqlited", "content-type: application/json",
                "Vary: Accept", "X-Empty: ", "Transfer-Encoding: chunked", "Connection: close",
            ]
        )
    }

    /// A handler cannot set framing, connection or date fields: they are the server's, whatever their case.
    @Test func handlerFields_theServerOwnsAreDropped() {
        let headers = HTTPHeaders([
            ("Content-Length", "5"), ("transfer-encoding", "chunked"), ("CONNECTION", "keep-alive"),
            ("Keep-Alive", "timeout=5"), ("Date", "yesterday"), ("Upgrade", "h2c"), ("Trailer", "X"),
            ("X-Kept", "1"),
        ])
        #expect(Self.lines(headers: headers) == ["HTTP/1.1 200 OK", "Date: <date>", "X-Kept: 1", "Content-Length: 0"])
    }

    /// The handler's `Server` field is dropped only when the server sends its own.
    @Test func handlerServerField_givesWayToTheConfiguredOne() {
        let headers: HTTPHeaders = ["server": "handler"]
        #expect(Self.lines(headers: headers, serverHeader: "sqlited").contains("Server: sqlited"))
        #expect(!Self.lines(headers: headers, serverHeader: "sqlited").contains("server: handler"))
        #expect(Self.lines(headers: headers, serverHeader: nil).contains("server: handler"))
    }

    /// Response splitting: a field whose name is not a token or whose value has CR, LF or NUL is dropped alone.
    @Test func handlerFields_invalidOnesAreDropped() {
        let headers = HTTPHeaders([
            ("X-Split", "a\r\nSet-Cookie: b"), ("X-LF", "a\nb"), ("X-CR", "a\rb"), ("X-Nul", "a\u{0}"),
            ("Bad Name", "x"), ("", "x"), ("X:Colon", "x"), ("X-Good", "tab\tand obs-text é"),
        ])
        let lines = Self.lines(headers: headers)
        #expect(lines == ["HTTP/1.1 200 OK", "Date: <date>", "X-Good: tab\tand obs-text é", "Content-Length: 0"])
    }

    /// A head too large for the stack buffer is written whole into the array, every field still checked.
    @Test func aLargeHead_isWrittenWholeAndStillChecked() {
        var headers = HTTPHeaders()
        let long = String(repeating: "v", count: 700)
        headers.add(name: "X-A", value: long)
        headers.add(name: "X-B", value: long)
        headers.add(name: "X-Bad", value: "a\r\nb")
        headers.add(name: "Content-Length", value: "1")
        headers.add(name: "X-C", value: "c")
        let lines = Self.lines(headers: headers, framing: .contentLength(42), keepAlive: false)
        #expect(
            lines == [
                "HTTP/1.1 200 OK", "Date: <date>", "X-A: \(long)", "X-B: \(long)", "X-C: c", "Content-Length: 42",
                "Connection: close",
            ]
        )
    }

    /// `write(…into:)` appends to what the output already holds, for a small head and a large one.
    @Test func write_appendsToTheOutput() {
        for size in [1, 2000] {
            var checked = ResponseFieldCache()
            var output = Array("previous".utf8)
            ResponseHead.write(
                status: .noContent,
                headers: ["X": String(repeating: "x", count: size)],
                framing: .none,
                keepAlive: true,
                version: .http1_1,
                serverHeader: nil,
                checked: &checked,
                into: &output
            )
            let text = String(decoding: output, as: UTF8.self)
            #expect(text.hasPrefix("previousHTTP/1.1 204 No Content\r\nDate: "))
            #expect(text.hasSuffix("\r\nX: \(String(repeating: "x", count: size))\r\n\r\n"))
        }
    }

    @Test func isServerOwned_matchesTheListWhateverItsCase() {
        for name in ["Content-Length", "transfer-encoding", "CONNECTION", "Keep-Alive", "date", "Upgrade", "trailer"] {
            #expect(ResponseHead.isServerOwned(name), "\(name)")
        }
        for name in [
            "Content-Type", "Server", "Dates", "Dat", "", "X-Content-Length", String(repeating: "a", count: 70),
        ] {
            #expect(!ResponseHead.isServerOwned(name), "\(name)")
        }
    }

    @Test func isValidValue_refusesControlCharactersButTab() {
        #expect(ResponseHead.isValidValue(""))
        #expect(ResponseHead.isValidValue("a b\tc~é"))
        #expect(!ResponseHead.isValidValue("a\rb"))
        #expect(!ResponseHead.isValidValue("a\nb"))
        #expect(!ResponseHead.isValidValue("a\u{0}b"))
        #expect(!ResponseHead.isValidValue("a\u{7F}b"))
        #expect(!ResponseHead.isValidValue("a\u{1F}b"))
    }

    /// A chunk is its size in lower-case hex, CRLF, the bytes, CRLF; the last chunk is a zero size and a blank line.
    @Test func chunk_framesTheBytesWithTheirHexSize() {
        #expect(ResponseHead.chunk(Array("abc".utf8)) == Array("3\r\nabc\r\n".utf8))
        let bytes = [UInt8](repeating: 0x61, count: 255)
        #expect(ResponseHead.chunk(bytes) == Array("ff\r\n".utf8) + bytes + Array("\r\n".utf8))
        #expect(ResponseHead.lastChunk == Array("0\r\n\r\n".utf8))
        #expect(ResponseHead.continueResponse == Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// Decimal digits are written without a string, zero and large values included; a negative one with its sign.
    @Test func appendDecimal_writesTheNumber() {
        for value in [0, 7, 10, 99, 100, 12_345, Int.max, -1, -250] {
            var output: [UInt8] = []
            output.appendDecimal(value)
            #expect(String(decoding: output, as: UTF8.self) == String(value))
        }
    }

    /// A fixed buffer refuses what does not fit and says so, keeping what was written before.
    @Test func fixedByteBuffer_overflowsWithoutWritingPastItsEnd() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { storage in
            var buffer = FixedByteBuffer(storage)
            buffer.appendLiteral("abc")
            #expect(!buffer.hasOverflowed)
            buffer.appendLiteral("de")
            #expect(buffer.hasOverflowed)
            #expect(Array(buffer.written) == Array("abc".utf8))
            buffer.appendByte(UInt8(ascii: "d"))
            #expect(Array(buffer.written) == Array("abcd".utf8))
            buffer.appendByte(UInt8(ascii: "e"))
            #expect(Array(buffer.written) == Array("abcd".utf8))
        }
    }
}
