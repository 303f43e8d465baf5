import Glibc
import HTTPServer

/// The `Content-Type` check for request bodies.
///
/// Accepted: no `Content-Type` at all, or the media type `application/json` (type and subtype compared
/// case-insensitively, RFC 9110 §8.3.1) with any parameters, written per RFC 9110 §5.6.6 (token or quoted-string
/// values, optional whitespace around `;`, empty parameters allowed). A `charset` parameter, if present, must be
/// `utf-8` (case-insensitive, quoted or not): JSON exchanged between systems is UTF-8 (RFC 8259 §8.1), so any other
/// charset announces a body this server would misread. Everything else — another media type such as `text/plain`
/// or `application/json-patch+json`, an empty or malformed value — is refused with 415.
public enum JSONContentType {
    /// Checks a request's `Content-Type` field value (`nil` when the request has none).
    ///
    /// - Throws: ``APIError/unsupportedMediaType(_:)`` when the body is not declared as UTF-8 JSON.
    public static func check(_ fieldValue: String?) throws(APIError) {
        guard isAcceptable(fieldValue) else { throw .unsupportedMediaType() }
    }

    /// Whether a request's `Content-Type` field value (`nil` when absent) declares a UTF-8 JSON body.
    public static func isAcceptable(_ fieldValue: String?) -> Bool {
        guard let fieldValue else { return true }
        // What nearly every client sends, recognized without parsing: byte for byte (String == is canonical
        // equivalence, under which U+037E GREEK QUESTION MARK equals `;`).
        if hasBytes(fieldValue, "application/json") || hasBytes(fieldValue, "application/json; charset=utf-8") {
            return true
        }
        var parser = MediaTypeParser(Array(fieldValue.utf8))
        return parser.acceptsJSON()
    }

    /// Whether `value`'s UTF-8 is exactly `literal`'s bytes.
    private static func hasBytes(_ value: String, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard value.utf8.count == count else { return false }
        return value.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, literal.utf8Start, count) == 0 }
            ?? value.utf8.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count))
    }
}

/// A small parser for `media-type = type "/" subtype parameters` (RFC 9110 §8.3.1).
private struct MediaTypeParser {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func acceptsJSON() -> Bool {
        skipWhitespace()
        guard let type = token(), consume(UInt8(ascii: "/")), let subtype = token() else { return false }
        guard lowercased(type) == Array("application".utf8), lowercased(subtype) == Array("json".utf8) else {
            return false
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { return true }
            guard consume(UInt8(ascii: ";")) else { return false }
            skipWhitespace()
            // parameters = *( OWS ";" OWS [ parameter ] ): an empty parameter is allowed.
            if index == bytes.count || bytes[index] == UInt8(ascii: ";") { continue }
            guard let name = token(), consume(UInt8(ascii: "=")), let value = parameterValue() else { return false }
            if lowercased(name) == Array("charset".utf8), lowercased(value) != Array("utf-8".utf8) {
                return false
            }
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `token = 1*tchar` (RFC 9110 §5.6.2).
    mutating func token() -> [UInt8]? {
        let start = index
        while index < bytes.count, ASCII.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start ? Array(bytes[start..<index]) : nil
    }

    /// `parameter-value = ( token / quoted-string )` (RFC 9110 §5.6.6, §5.6.4), unquoted.
    mutating func parameterValue() -> [UInt8]? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return token() }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return value
            case UInt8(ascii: "\\"):
                guard index < bytes.count, Self.isQuotedPairCharacter(bytes[index]) else { return nil }
                value.append(bytes[index])
                index += 1
            case 0x09, 0x20, 0x21, 0x23...0x5B, 0x5D...0x7E, 0x80...0xFF:
                value.append(byte)
            default:
                return nil
            }
        }
        return nil
    }

    func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    static func isQuotedPairCharacter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80
    }
}
