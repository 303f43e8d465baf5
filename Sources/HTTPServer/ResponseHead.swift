/// Serializes a response's status line and header section (RFC 9112 §4, §6).
enum ResponseHead {
    /// How the content is delimited.
    enum Framing: Equatable {
        /// No content at all (1xx, 204, 304): no length field.
        case none
        /// `Content-Length`.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Content runs until the connection closes (streaming to an HTTP/1.0 client).
        case closeDelimited
    }

    /// Fields the server sets itself; a handler's copy is dropped so that framing cannot be corrupted.
    private static let serverOwnedFields = [
        "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Date", "Upgrade", "Trailer",
    ]
    /// Bit n set: some server-owned name has n bytes (a mask, not a `Set`: no hashing per field).
    private static let serverOwnedLengths: UInt64 = serverOwnedFields.reduce(0) { $0 | 1 << $1.utf8.count }

    /// The response head; `serverHeader` must be a valid field value (``HTTPServer`` checks the configured one once).
    static func serialize(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?,
        checked: inout CheckedFields
    ) -> [UInt8] {
        var head: [UInt8] = []
        head.reserveCapacity(256)
        write(
            status: status,
            headers: headers,
            framing: framing,
            keepAlive: keepAlive,
            version: version,
            serverHeader: serverHeader,
            checked: &checked,
            into: &head
        )
        return head
    }

    /// Appends the response head to `head` (a connection's output: no array of its own, no copy).
    static func write(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?,
        checked: inout CheckedFields,
        into head: inout [UInt8]
    ) {
        // Built as bytes, not by String concatenation: this runs once per response.
        head.appendLiteral("HTTP/1.1 ")
        appendDecimal(status.code, to: &head)
        head.append(ASCII.space)
        head.appendUTF8(sanitizedReason(status.reasonPhrase))
        head.appendLiteral("\r\nDate: ")
        HTTPDate.appendNow(to: &head)
        head.appendLiteral("\r\n")
        if let serverHeader {
            appendField("Server", serverHeader, to: &head)
        }
        for (name, value) in headers {
            guard !isServerOwned(name) else { continue }
            if serverHeader != nil && HTTPHeaders.namesEqual(name, "Server") { continue }
            // Response splitting: a name or value with CR/LF would let a handler's data forge fields.
            guard checked.check(name: name, value: value) != nil else { continue }
            appendField(name, value, to: &head)
        }
        switch framing {
        case .none: break
        case .contentLength(let length):
            head.appendLiteral("Content-Length: ")
            appendDecimal(length, to: &head)
            head.appendLiteral("\r\n")
        case .chunked: head.appendLiteral("Transfer-Encoding: chunked\r\n")
        case .closeDelimited: break
        }
        if !keepAlive {
            head.appendLiteral("Connection: close\r\n")
        } else if version == .http1_0 {
            head.appendLiteral("Connection: keep-alive\r\n")
        }
        head.appendLiteral("\r\n")
    }

    private static func appendField(_ name: String, _ value: String, to head: inout [UInt8]) {
        head.appendUTF8(name)
        head.appendLiteral(": ")
        head.appendUTF8(value)
        head.appendLiteral("\r\n")
    }

    /// Appends an integer in decimal.
    static func appendDecimal(_ value: Int, to head: inout [UInt8]) {
        head.appendDecimal(value)
    }

    /// Whether `name` is one of `serverOwnedFields`; the length rules out most names before any comparison.
    static func isServerOwned(_ name: String) -> Bool {
        let length = name.utf8.count
        return length < 64 && serverOwnedLengths & (1 << length) != 0
            && serverOwnedFields.contains { HTTPHeaders.namesEqual($0, name) }
    }

    static func isValidValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { $0.allSatisfy(ASCII.isFieldValueCharacter) }
    }

    private static func sanitizedReason(_ reason: String) -> String {
        isValidValue(reason) ? reason : "Unknown"
    }

    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The framing of one chunk (RFC 9112 §7.1).
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        var framed = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        framed.reserveCapacity(framed.count + bytes.count + 2)
        framed.append(contentsOf: bytes)
        framed.append(contentsOf: [ASCII.cr, ASCII.lf])
        return framed
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)
}

extension [UInt8] {
    /// Appends a literal's bytes with one copy.
    @inline(__always)
    mutating func appendLiteral(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends an integer in decimal, digit by digit (no string built).
    mutating func appendDecimal(_ value: Int) {
        guard value >= 0 else {
            appendUTF8(String(value))
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends a string's UTF-8 bytes with one copy (a `String.UTF8View` is appended byte by byte).
    @inline(__always)
    mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }
}
