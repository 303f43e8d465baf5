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

    static func serialize(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?
    ) -> [UInt8] {
        // Built as bytes, not by String concatenation: this runs once per response.
        var head: [UInt8] = []
        head.reserveCapacity(256)
        head.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, to: &head)
        head.append(ASCII.space)
        head.append(contentsOf: sanitizedReason(status.reasonPhrase).utf8)
        head.append(contentsOf: "\r\nDate: ".utf8)
        head.append(contentsOf: HTTPDate.now().utf8)
        head.append(contentsOf: "\r\n".utf8)
        if let serverHeader, isValidValue(serverHeader) {
            appendField("Server", serverHeader, to: &head)
        }
        for (name, value) in headers {
            guard !serverOwnedFields.contains(where: { HTTPHeaders.namesEqual($0, name) }) else { continue }
            if serverHeader != nil && HTTPHeaders.namesEqual(name, "Server") { continue }
            // Response splitting: a name or value with CR/LF would let a handler's data forge fields.
            guard ASCII.isTokenString(name), isValidValue(value) else { continue }
            appendField(name, value, to: &head)
        }
        switch framing {
        case .none: break
        case .contentLength(let length):
            head.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(length, to: &head)
            head.append(contentsOf: "\r\n".utf8)
        case .chunked: head.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .closeDelimited: break
        }
        if !keepAlive {
            head.append(contentsOf: "Connection: close\r\n".utf8)
        } else if version == .http1_0 {
            head.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        head.append(contentsOf: "\r\n".utf8)
        return head
    }

    private static func appendField(_ name: String, _ value: String, to head: inout [UInt8]) {
        head.append(contentsOf: name.utf8)
        head.append(contentsOf: ": ".utf8)
        head.append(contentsOf: value.utf8)
        head.append(contentsOf: "\r\n".utf8)
    }

    /// Appends an integer in decimal (a small string: no allocation).
    private static func appendDecimal(_ value: Int, to head: inout [UInt8]) {
        head.append(contentsOf: String(value).utf8)
    }

    private static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy(ASCII.isFieldValueCharacter)
    }

    private static func sanitizedReason(_ reason: String) -> String {
        reason.utf8.allSatisfy(ASCII.isFieldValueCharacter) ? reason : "Unknown"
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
