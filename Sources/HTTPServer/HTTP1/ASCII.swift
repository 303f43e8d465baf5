import Glibc

/// Byte classes of the HTTP grammar (RFC 9110 §5.6.2, RFC 9112 §2.2). Public for the few the service parses itself
/// (`Content-Type`, `Accept`), so that the grammar is written once.
public enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// `tchar` of RFC 9110 §5.6.2.
    @inlinable
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// `field-vchar` plus SP and HTAB: what may appear inside a field value (RFC 9110 §5.5).
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || (0x21...0x7E).contains(byte) || byte >= 0x80
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        hexValue(byte) != nil
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    static func isTokenString(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenCharacter)
    }

    /// A field's value from the bytes after its colon (RFC 9110 §5.5): optional whitespace trimmed at both ends,
    /// decoded as ``decodeFieldBytes(_:)`` does; nil when a byte is not allowed in a value. The one reading of a
    /// value, for the parser's lines and the head cache's.
    static func fieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var first = 0
        var end = bytes.count
        while first < end, bytes[first] == space || bytes[first] == tab { first += 1 }
        while end > first, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        var isASCII = true
        for byte in bytes[first..<end] {
            guard isFieldValueCharacter(byte) else { return nil }
            isASCII = isASCII && byte < 0x80
        }
        let value = UnsafeBufferPointer(rebasing: bytes[first..<end])
        return isASCII ? String(decoding: value, as: UTF8.self) : decodeFieldBytes(value)
    }

    /// Decodes header bytes: UTF-8 when valid, else ISO 8859-1 so that no byte is lost (RFC 9110 §5.5 obs-text).
    static func decodeFieldBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

extension String {
    /// Whether both strings hold the same UTF-8 bytes. `==` compares by canonical equivalence (U+212A KELVIN SIGN
    /// equals `K`), so a remembered check of one string must not be reused for another that is merely equal.
    func hasSameBytes(as other: String) -> Bool {
        let left = utf8
        let right = other.utf8
        guard left.count == right.count else { return false }
        guard !left.isEmpty else { return true }
        // Native strings are contiguous UTF-8: one memcmp (this runs several times per request; the element-wise
        // comparison cost about 1,200 instructions a string).
        let compared = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0
            }
        }
        if let compared = compared ?? nil { return compared }
        return left.elementsEqual(right)
    }
}
