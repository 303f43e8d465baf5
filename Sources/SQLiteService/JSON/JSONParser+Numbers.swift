extension JSONParser.Scanner {
    /// Parses a number token (RFC 8259 §6); the index is at its first byte (`-` or a digit).
    ///
    /// The grammar is checked byte by byte first. An integer is then accumulated exactly in 64 bits; anything else
    /// (fraction, exponent, or an integer outside `Int64`) goes through the standard library's correctly rounded,
    /// locale-independent `Double` conversion.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var position = index
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }

        let digitsStart = position
        guard position < bytes.count else { throw error(.unexpectedEndOfInput, at: position) }
        guard isDigit(bytes[position]) else { throw error(.invalidNumber, at: position) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error(.invalidNumber, at: position) }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let digitsEnd = position

        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count else { throw error(.unexpectedEndOfInput, at: position) }
            guard isDigit(bytes[position]) else { throw error(.invalidNumber, at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count else { throw error(.unexpectedEndOfInput, at: position) }
            guard isDigit(bytes[position]) else { throw error(.invalidNumber, at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        index = position

        if isInteger, let integer = exactInteger(digits: digitsStart..<digitsEnd, negative: negative) {
            return .integer(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        // The grammar was checked above, so the conversion only fails to produce a finite value on overflow.
        guard let double = Double(text), double.isFinite else { throw error(.numberOutOfRange, at: start) }
        return .double(double)
    }

    /// The integer spelled by the decimal digits in `range`, or `nil` when it does not fit in `Int64`.
    private func exactInteger(digits range: Range<Int>, negative: Bool) -> Int64? {
        // The grammar forbids leading zeros, and UInt64.max has 20 digits: a longer run cannot fit.
        guard range.count <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for position in range {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= Int64.min.magnitude else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
