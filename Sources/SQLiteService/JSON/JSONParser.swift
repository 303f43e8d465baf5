/// A strict RFC 8259 parser for request bodies.
///
/// The parser makes one pass over the bytes, in time linear in their length, and refuses anything RFC 8259 does not
/// allow rather than guessing: trailing commas, comments, leading zeros or `+`, `NaN`/`Infinity`, whitespace other
/// than tab, line feed, carriage return and space, more than one top-level value, a byte order mark, unescaped
/// control characters in strings, lone surrogate escapes, and ill-formed UTF-8 anywhere in the document. It also
/// refuses what RFC 8259 leaves ambiguous: an object with a repeated key (§4), and a number too large for a double
/// (§6 — `1e999` would otherwise become infinity).
///
/// A number with neither fraction nor exponent that fits in `Int64` is parsed exactly from its digits into
/// ``JSONValue/integer(_:)``; every other number becomes ``JSONValue/double(_:)`` (correctly rounded by the
/// standard library's locale-independent conversion). `-0` is the integer 0. Escaped `\u0000` is kept in strings.
///
/// Nesting is limited by ``maxDepth`` and handled with an explicit stack, so a document of 100,000 `[` fails cleanly
/// instead of overflowing the call stack.
public struct JSONParser: Sendable {
    /// The default limit on nested arrays and objects.
    public static let defaultMaxDepth = 64

    /// The deepest nesting of arrays and objects accepted; `[[1]]` has depth 2, a scalar depth 0.
    ///
    /// Parsing never recurses, but releasing or comparing a ``JSONValue`` does, one frame per level: keep the
    /// limit modest (request bodies need fewer than 8 levels).
    public var maxDepth: Int

    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        precondition(maxDepth >= 0, "maxDepth must not be negative")
        self.maxDepth = maxDepth
    }

    /// Parses one JSON document.
    ///
    /// - Throws: ``JSONParseError`` with the offset of the first problem.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var scanner = Scanner(bytes: buffer, maxDepth: maxDepth)
            return try scanner.parseDocument()
        }
    }

    /// Parses one JSON document from raw memory, which must stay valid for the duration of the call.
    ///
    /// - Throws: ``JSONParseError`` with the offset of the first problem.
    public func parse(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var scanner = Scanner(bytes: buffer.bindMemory(to: UInt8.self), maxDepth: maxDepth)
        return try scanner.parseDocument()
    }
}

extension JSONParser {
    /// The parsing state for one document.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0
        /// Reused for strings that contain escapes, so that each such string costs one copy.
        var scratch: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        /// An object being filled: its members so far and the key waiting for its value.
        struct PendingObject {
            var members: [JSONObject.Member] = []
            var key: String
            /// Built once an object grows past a few keys, keeping duplicate detection linear overall.
            var keySet: Set<String>? = nil

            init(key: String) {
                self.key = key
                // Request objects have a few members: one allocation rather than growing 1, 2, 4.
                members.reserveCapacity(4)
            }

            /// Whether `key` is already a member's key.
            mutating func contains(_ key: String) -> Bool {
                if let keySet { return keySet.contains(key) }
                if members.count < 16 { return members.contains { $0.key == key } }
                var set = Set<String>(minimumCapacity: members.count * 2)
                for member in members { set.insert(member.key) }
                keySet = set
                return set.contains(key)
            }

            mutating func commit(_ value: JSONValue) {
                keySet?.insert(key)
                members.append(JSONObject.Member(key: key, value: value))
            }
        }

        enum ContainerKind {
            case array
            case object
        }

        func error(_ reason: JSONParseError.Reason, at offset: Int? = nil) -> JSONParseError {
            JSONParseError(offset: offset ?? index, reason: reason)
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        /// Parses the whole document: one value, optionally surrounded by whitespace.
        mutating func parseDocument() throws(JSONParseError) -> JSONValue {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                throw error(.byteOrderMark, at: 0)
            }
            var kinds: [ContainerKind] = []
            var arrays: [[JSONValue]] = []
            var objects: [PendingObject] = []
            // Requests nest two or three levels: room for that up front instead of growing each stack.
            kinds.reserveCapacity(4)
            arrays.reserveCapacity(4)
            objects.reserveCapacity(4)

            // Each turn of the outer loop reads one value's first token; containers are pushed onto the explicit
            // stacks instead of recursing. A completed value is then attached to the enclosing containers, closing
            // as many of them as the input closes.
            readValue: while true {
                skipWhitespace()
                guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
                var value: JSONValue
                switch bytes[index] {
                case UInt8(ascii: "["):
                    guard kinds.count < maxDepth else { throw error(.nestingTooDeep) }
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        value = .array([])
                    } else {
                        kinds.append(.array)
                        arrays.append([])
                        continue readValue
                    }
                case UInt8(ascii: "{"):
                    guard kinds.count < maxDepth else { throw error(.nestingTooDeep) }
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        value = .object(JSONObject())
                    } else {
                        let key = try parseKey()
                        kinds.append(.object)
                        objects.append(PendingObject(key: key))
                        continue readValue
                    }
                case UInt8(ascii: "\""):
                    value = .string(try parseString())
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    value = try parseNumber()
                case UInt8(ascii: "t"):
                    try expectLiteral("true")
                    value = .bool(true)
                case UInt8(ascii: "f"):
                    try expectLiteral("false")
                    value = .bool(false)
                case UInt8(ascii: "n"):
                    try expectLiteral("null")
                    value = .null
                default:
                    throw error(.unexpectedCharacter)
                }

                while true {
                    guard let kind = kinds.last else {
                        skipWhitespace()
                        guard index == bytes.count else { throw error(.trailingContent) }
                        return value
                    }
                    skipWhitespace()
                    switch kind {
                    case .array:
                        arrays[arrays.count - 1].append(value)
                        guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
                        switch bytes[index] {
                        case UInt8(ascii: ","):
                            index += 1
                            continue readValue
                        case UInt8(ascii: "]"):
                            index += 1
                            kinds.removeLast()
                            value = .array(arrays.removeLast())
                        default:
                            throw error(.unexpectedCharacter)
                        }
                    case .object:
                        objects[objects.count - 1].commit(value)
                        guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
                        switch bytes[index] {
                        case UInt8(ascii: ","):
                            index += 1
                            skipWhitespace()
                            let keyOffset = index
                            let key = try parseKey()
                            guard !objects[objects.count - 1].contains(key) else {
                                throw error(.duplicateKey, at: keyOffset)
                            }
                            objects[objects.count - 1].key = key
                            continue readValue
                        case UInt8(ascii: "}"):
                            index += 1
                            kinds.removeLast()
                            value = .object(JSONObject(uniqueMembers: objects.removeLast().members))
                        default:
                            throw error(.unexpectedCharacter)
                        }
                    }
                }
            }
        }

        /// Parses `"key"` and the `:` after it, leaving the index at the value.
        mutating func parseKey() throws(JSONParseError) -> String {
            guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
            guard bytes[index] == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter) }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
            guard bytes[index] == UInt8(ascii: ":") else { throw error(.unexpectedCharacter) }
            index += 1
            return key
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            for byte in expected {
                guard index < bytes.count else { throw error(.unexpectedEndOfInput) }
                guard bytes[index] == byte else { throw error(.unexpectedCharacter) }
                index += 1
            }
        }
    }
}
