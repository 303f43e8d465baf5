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
        var text = "HTTP/1.1 \(status.code) \(sanitizedReason(status.reasonPhrase))\r\n"
        text += "Date: \(HTTPDate.now())\r\n"
        if let serverHeader, isValidValue(serverHeader) {
            text += "Server: \(serverHeader)\r\n"
        }
        for (name, value) in headers {
            guard !serverOwnedFields.contains(where: { HTTPHeaders.namesEqual($0, name) }) else { continue }
            if serverHeader != nil && HTTPHeaders.namesEqual(name, "Server") { continue }
            // Response splitting: a name or value with CR/LF would let a handler's data forge fields.
            guard ASCII.isTokenString(name), isValidValue(value) else { continue }
            text += "\(name): \(value)\r\n"
        }
        switch framing {
        case .none: break
        case .contentLength(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .closeDelimited: break
        }
        if !keepAlive {
            text += "Connection: close\r\n"
        } else if version == .http1_0 {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
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
