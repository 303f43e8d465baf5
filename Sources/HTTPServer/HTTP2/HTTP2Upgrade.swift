/// The HTTP/1.1 `Upgrade: h2c` handshake (RFC 7540 §3.2; RFC 9113 deprecates it, but clients such as
/// `curl --http2` still use it on cleartext connections).
enum HTTP2Upgrade {
    /// The response that switches the connection; the server's SETTINGS frame follows it.
    static let switchingProtocols = Array(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8
    )

    /// The decoded `HTTP2-Settings` field when `request` asks to upgrade to h2c: HTTP/1.1, `Upgrade` listing `h2c`,
    /// `Connection` listing `Upgrade` and `HTTP2-Settings`, and exactly one `HTTP2-Settings` field in base64url.
    /// Nil otherwise: the request is then served as HTTP/1.1, as RFC 7540 §3.2.1 requires.
    static func settingsPayload(of request: HTTPRequest) -> [UInt8]? {
        // Most requests have no Upgrade field: ruled out before any list is gathered.
        guard request.version == .http1_1, request.headers.contains("Upgrade") else { return nil }
        let headers = request.headers
        guard HTTPHeaders.listTokens(of: headers.values(for: "Upgrade")).contains("h2c") else { return nil }
        let connection = HTTPHeaders.listTokens(of: headers.values(for: "Connection"))
        guard connection.contains("upgrade"), connection.contains("http2-settings") else { return nil }
        let settings = headers.values(for: "HTTP2-Settings")
        guard settings.count == 1 else { return nil }
        return base64URLDecoded(settings[0])
    }

    /// Connection-specific fields, which HTTP/2 forbids (RFC 9113 §8.2.2): dropped from a handler's response.
    static func isConnectionSpecific(_ name: String) -> Bool {
        let length = name.utf8.count
        return length < 64 && connectionSpecificLengths & (1 << length) != 0
            && connectionSpecificFields.contains { HTTPHeaders.namesEqual($0, name) }
    }

    /// Bit n set: some connection-specific name has n bytes (most names are ruled out by their length alone).
    private static let connectionSpecificLengths: UInt64 = connectionSpecificFields.reduce(0) {
        $0 | 1 << $1.utf8.count
    }

    private static let connectionSpecificFields = [
        "Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "TE",
    ]

    /// Decodes base64url without padding (RFC 4648 §5; `=` padding is tolerated); nil for any other character or
    /// an impossible length.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var count = 0
        var padding = false
        for character in text.utf8 {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                padding = true
                continue
            default: return nil
            }
            guard !padding else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            count += 1
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return count % 4 == 1 ? nil : bytes
    }
}
