/// A JSON value that keeps every number exactly as it was written.
///
/// Foundation's `JSONSerialization` turns numbers into `NSNumber`/`Double`, which loses the distinction between
/// `1` and `1.0` and the low bits of integers beyond ±2^53. The sqlited contract (API.md, "Values") promises both, so
/// end-to-end tests parse responses with this type instead: a number stays its literal text (`.number("1.0")`),
/// and ``int64Value`` reads it as a 64-bit integer without going through a `Double`.
///
/// Objects keep their members in document order (duplicates included), because the order of `columns` and of object
/// rows is part of what the tests check.
enum JSONValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// The number's literal text, exactly as written in the document (validated against RFC 8259 §6).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One member of a JSON object.
    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONValue
    }

    /// Parses a complete JSON text (RFC 8259); anything but whitespace after the value is an error.
    ///
    /// - Throws: ``JSONValue/ParseError`` with the byte offset of the problem.
    init(parsing bytes: some Collection<UInt8>) throws {
        var parser = JSONValueParser(bytes: Array(bytes))
        self = try parser.parseDocument()
    }

    /// Parses a complete JSON text given as a string.
    init(parsing text: String) throws {
        try self.init(parsing: Array(text.utf8))
    }

    /// Why a JSON text could not be parsed.
    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var reason: String

        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    // MARK: Access

    /// The value of the last member named `key` (the last one wins, as in the API's object rows), or nil.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The element at `index` of an array, or nil when out of range or not an array.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    var isNull: Bool { self == .null }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var objectMembers: [Member]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The number as a 64-bit integer, read from its text; nil when it has a fraction or exponent or does not fit.
    var int64Value: Int64? {
        guard case .number(let literal) = self else { return nil }
        return Int64(literal)
    }

    /// The number as a `Double` (correctly rounded from its text).
    var doubleValue: Double? {
        guard case .number(let literal) = self else { return nil }
        return Double(literal)
    }

    /// True for a number written with a fraction or an exponent (how the API marks a REAL).
    var isRealLiteral: Bool {
        guard case .number(let literal) = self else { return false }
        return literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    // MARK: Serialization

    /// Compact JSON text for this value; numbers are written back exactly as stored.
    var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    var description: String { serialized }

    private func write(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let literal):
            output += literal
        case .string(let value):
            JSONValue.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                // RFC 8259 §7: control characters must be escaped; \u00XX covers all of them, NUL included.
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue {
    /// Builds an object from key/value pairs, in order.
    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { Member(key: $0.key, value: $0.value) })
    }

    /// A number value for an integer.
    static func integer(_ value: some BinaryInteger) -> JSONValue {
        .number(String(value))
    }
}
