/// The syntax of a `Host` field value and of an absolute-form target's authority: `uri-host [ ":" port ]`
/// (RFC 9112 §3.2, RFC 3986 §3.2.2–3.2.3).
///
/// `uri-host` is an IP literal in brackets (an IPv6 address, `[::1]`), or a registered name or IPv4 address:
/// unreserved characters, percent-encodings and sub-delimiters. A port is 1 to 5 digits no larger than 65535.
/// Stricter than RFC 3986 in one place, on purpose: a colon with no port after it (`host:`) is refused, as no
/// client sends it and a server that accepts it invites disagreement with proxies about where the request goes.
/// An empty value (no host at all) is accepted in a `Host` field, as RFC 9110 §7.2 allows for targets without an
/// authority; an absolute-form target's authority must name a host.
enum HostSyntax {
    static func isValid(_ value: some Collection<UInt8>, allowingEmpty: Bool) -> Bool {
        let bytes = Array(value)
        if bytes.isEmpty { return allowingEmpty }
        var index = 0
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy(isIPLiteralCharacter),
                bytes[1..<close].contains(UInt8(ascii: ":"))
            else { return false }
            index = close + 1
        } else {
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, ASCII.hexValue(bytes[index + 1]) != nil,
                        ASCII.hexValue(bytes[index + 2]) != nil
                    else { return false }
                    index += 3
                    continue
                }
                guard isRegisteredNameCharacter(byte) else { return false }
                index += 1
            }
            guard index > 0 else { return false }
        }
        guard index < bytes.count else { return true }
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        let port = bytes[(index + 1)...]
        guard (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        return port.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 65535
    }

    /// unreserved / sub-delims (RFC 3986 §2.2–2.3); `%` is handled by the caller.
    private static func isRegisteredNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// IPv6 addresses (hex digits, colons, a dotted IPv4 tail); IPvFuture literals are not accepted.
    private static func isIPLiteralCharacter(_ byte: UInt8) -> Bool {
        ASCII.isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }
}
