import Glibc

/// The common `/query` and `/update` body, read in one pass without building a JSON tree:
/// `{"sql": "...", "params": [...]}` (either member first, `params` optional), the SQL and any text parameter
/// printable ASCII without escapes, each parameter an integer of at most 18 digits, such a string, `true`,
/// `false` or `null`, and no option keys.
///
/// Anything else — escapes, non-ASCII text, other numbers, objects, options, a syntax error, a repeated key — is
/// `nil`, and the general decoder (``JSONParser`` then ``RequestDecoder``) reads the body and reports what is
/// wrong. What this path accepts decodes to the same ``StatementRequest`` as the general path would.
enum SimpleStatementBody {
    static func decode(_ body: [UInt8]) -> StatementRequest? {
        body.withUnsafeBufferPointer { bytes in
            var reader = Reader(bytes: bytes)
            return reader.statement()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func statement() -> StatementRequest? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var sql: String?
            var params: [ParameterValue]?
            var first = true
            while true {
                skipWhitespace()
                if take(UInt8(ascii: "}")) { break }
                if !first {
                    guard take(UInt8(ascii: ",")) else { return nil }
                    skipWhitespace()
                }
                first = false
                guard let key = plainBytes() else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                if Self.equals(key, "sql") {
                    guard sql == nil, let text = plainBytes() else { return nil }
                    sql = RecentSQLText.text(text)
                } else if Self.equals(key, "params") {
                    guard params == nil, let values = positionalValues() else { return nil }
                    params = values
                } else {
                    return nil
                }
            }
            skipWhitespace()
            guard index == bytes.count, let sql else { return nil }
            return StatementRequest(sql: sql, parameters: params.map { .positional($0) } ?? .none)
        }

        /// `[value, ...]` of the simple kinds.
        private mutating func positionalValues() -> [ParameterValue]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var values: [ParameterValue] = []
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return values }
            while true {
                skipWhitespace()
                guard let value = simpleValue() else { return nil }
                values.append(value)
                skipWhitespace()
                if take(UInt8(ascii: "]")) { return values }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        }

        private mutating func simpleValue() -> ParameterValue? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return plainString().map { .text($0) }
            case UInt8(ascii: "t"): return word("true") ? .integer(1) : nil
            case UInt8(ascii: "f"): return word("false") ? .integer(0) : nil
            case UInt8(ascii: "n"): return word("null") ? .null : nil
            default: return integer().map { .integer($0) }
            }
        }

        /// An integer without sign issues: `-`? then 1 to 18 digits, no leading zero (and not `-0`), not followed by
        /// a fraction or an exponent.
        private mutating func integer() -> Int64? {
            var position = index
            let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let digitsStart = position
            var value: Int64 = 0
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                // At most 18 digits: the value stays far inside Int64 (longer numbers take the general path).
                if position - digitsStart == 18 { return nil }
                value = value * 10 + Int64(bytes[position] - 0x30)
                position += 1
            }
            let count = position - digitsStart
            guard count > 0, !(count > 1 && bytes[digitsStart] == 0x30), !(negative && value == 0) else { return nil }
            if position < bytes.count {
                let next = bytes[position]
                guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else {
                    return nil
                }
            }
            index = position
            return negative ? -value : value
        }

        /// A string of printable ASCII without escapes.
        private mutating func plainString() -> String? {
            plainBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        /// The bytes between the quotes of a string of printable ASCII without escapes.
        private mutating func plainBytes() -> UnsafeBufferPointer<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    return text
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// Whether `bytes` are exactly `literal`'s.
        private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
            bytes.count == literal.utf8CodeUnitCount
                && (bytes.isEmpty || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0)
        }

        private mutating func word(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}
