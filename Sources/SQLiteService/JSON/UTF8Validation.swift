/// Well-formed UTF-8 checks shared by the parser (which refuses bad input) and the writer (which repairs it).
enum UTF8Validation {
    /// Examines the sequence starting at `index`, whose first byte is not ASCII.
    ///
    /// Follows the well-formed byte sequences of Unicode 15 Table 3-7 (RFC 3629 §4): overlong forms, encoded
    /// surrogates (U+D800–U+DFFF) and code points above U+10FFFF are ill-formed. For an ill-formed sequence the
    /// returned length is its *maximal subpart* (at least one byte), the unit that Unicode §3.9 recommends replacing
    /// with one U+FFFD.
    ///
    /// - Returns: whether the sequence is well-formed, and how many bytes it (or its maximal subpart) spans.
    @inline(__always)
    static func scalarLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (valid: Bool, length: Int) {
        let lead = bytes[index]
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        let length: Int
        switch lead {
        case 0x00...0x7F: return (true, 1)
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return (false, 1)
        }
        let count = bytes.count
        guard index + 1 < count, low <= bytes[index + 1], bytes[index + 1] <= high else { return (false, 1) }
        var offset = 2
        while offset < length {
            guard index + offset < count, bytes[index + offset] & 0xC0 == 0x80 else { return (false, offset) }
            offset += 1
        }
        return (true, length)
    }

    /// Appends the UTF-8 encoding of `scalar` (already known to be a Unicode scalar value).
    @inline(__always)
    static func append(scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (scalar >> 6)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (scalar >> 12)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (scalar >> 18)))
            buffer.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
