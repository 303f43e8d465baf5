/// Standard base64 (RFC 4648 §4), as used by the `{"base64": "..."}` blob representation.
enum Base64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The number of characters `count` bytes encode to, padding included.
    static func encodedLength(of count: Int) -> Int {
        (count + 2) / 3 * 4
    }

    /// Appends the padded base64 encoding of `input` to `output`.
    static func encode(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        let table = alphabet.utf8Start
        output.reserveCapacity(output.count + encodedLength(of: input.count))
        var index = 0
        let count = input.count
        while index + 3 <= count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(table[Int(group >> 18)])
            output.append(table[Int(group >> 12 & 0x3F)])
            output.append(table[Int(group >> 6 & 0x3F)])
            output.append(table[Int(group & 0x3F)])
            index += 3
        }
        switch count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output.append(table[Int(group >> 18)])
            output.append(table[Int(group >> 12 & 0x3F)])
            output.append(UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(table[Int(group >> 18)])
            output.append(table[Int(group >> 12 & 0x3F)])
            output.append(table[Int(group >> 6 & 0x3F)])
            output.append(UInt8(ascii: "="))
        default:
            break
        }
    }

    /// Decodes canonical, padded base64, or returns `nil`.
    ///
    /// Strict on purpose (RFC 4648 §3.3 and §3.5 allow decoders to be): the length must be a multiple of four,
    /// only the standard alphabet is allowed (no URL-safe alphabet, no whitespace or line breaks), `=` may only pad
    /// the last group, and the unused bits before the padding must be zero, so every blob has exactly one spelling.
    /// The empty string decodes to zero bytes.
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count / 4 * 3)
        var index = 0
        while index < count {
            let isLast = index + 4 == count
            guard let a = sextet(input[index]), let b = sextet(input[index + 1]) else { return nil }
            let c = input[index + 2]
            let d = input[index + 3]
            if isLast, c == UInt8(ascii: "="), d == UInt8(ascii: "=") {
                guard b & 0x0F == 0 else { return nil }
                output.append(a << 2 | b >> 4)
            } else if isLast, d == UInt8(ascii: "=") {
                guard let c = sextet(c), c & 0x03 == 0 else { return nil }
                output.append(a << 2 | b >> 4)
                output.append(b << 4 | c >> 2)
            } else {
                guard let c = sextet(c), let d = sextet(d) else { return nil }
                output.append(a << 2 | b >> 4)
                output.append(b << 4 | c >> 2)
                output.append(c << 6 | d)
            }
            index += 4
        }
        return output
    }

    @inline(__always)
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
