extension JSONParser.Scanner {
    /// Parses a string token (RFC 8259 §7); the index is at the opening quote.
    ///
    /// A string without escapes is validated in place and becomes a `String` with a single copy; one with escapes is
    /// decoded into the reusable scratch buffer.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte < 0x80 {
                position += 1
            } else {
                let (valid, length) = UTF8Validation.scalarLength(in: bytes, at: position)
                guard valid else { throw error(.invalidUTF8, at: position) }
                position += length
            }
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        index = position
        return try parseStringSlowPath()
    }

    /// Continues a string from the first escape (or offending byte), appending decoded bytes to `scratch`.
    private mutating func parseStringSlowPath() throws(JSONParseError) -> String {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0x00..<0x20:
                throw error(.controlCharacterInString)
            case 0x20..<0x80:
                scratch.append(byte)
                index += 1
            default:
                let (valid, length) = UTF8Validation.scalarLength(in: bytes, at: index)
                guard valid else { throw error(.invalidUTF8) }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
                index += length
            }
        }
        throw error(.unexpectedEndOfInput)
    }

    /// Decodes one escape sequence; the index is at the backslash.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = index
        guard index + 1 < bytes.count else { throw error(.unexpectedEndOfInput) }
        let decoded: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            index += 2
            let unit = try parseHex4()
            let scalar: UInt32
            switch unit {
            case 0xD800...0xDBFF:
                // RFC 8259 §7: a character outside the BMP is a high surrogate escape followed by a low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error(.loneSurrogate, at: escapeStart) }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error(.loneSurrogate, at: escapeStart) }
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            case 0xDC00...0xDFFF:
                throw error(.loneSurrogate, at: escapeStart)
            default:
                scalar = UInt32(unit)
            }
            UTF8Validation.append(scalar: scalar, to: &scratch)
            return
        default:
            throw error(.invalidEscape, at: escapeStart)
        }
        scratch.append(decoded)
        index += 2
    }

    /// Reads four hexadecimal digits at the index.
    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
