import Testing

@testable import SQLiteService

/// A parse case: the document as text (or raw bytes) and what it must produce.
struct ValidCase: CustomTestStringConvertible, Sendable {
    let json: String
    let expected: JSONValue
    var testDescription: String { json.count > 60 ? String(json.prefix(60)) + "…" : json }
}

struct InvalidCase: CustomTestStringConvertible, Sendable {
    let label: String
    let bytes: [UInt8]
    let reason: JSONParseError.Reason
    let offset: Int?

    init(_ label: String, _ json: String, _ reason: JSONParseError.Reason, at offset: Int? = nil) {
        self.label = label
        self.bytes = Array(json.utf8)
        self.reason = reason
        self.offset = offset
    }

    init(_ label: String, bytes: [UInt8], _ reason: JSONParseError.Reason, at offset: Int? = nil) {
        self.label = label
        self.bytes = bytes
        self.reason = reason
        self.offset = offset
    }

    var testDescription: String { label }
}

func parse(_ json: String, maxDepth: Int = JSONParser.defaultMaxDepth) throws -> JSONValue {
    try JSONParser(maxDepth: maxDepth).parse(Array(json.utf8))
}

func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
        _ = try JSONParser(maxDepth: maxDepth).parse(bytes)
        return nil
    } catch {
        return error
    }
}

func object(_ members: (String, JSONValue)...) -> JSONValue {
    var object = JSONObject()
    for (key, value) in members { object[key] = value }
    return .object(object)
}

@Suite struct JSONParserTests {
    // Valid documents, in the spirit of JSONTestSuite's y_ cases.
    static let validCases: [ValidCase] = [
        ValidCase(json: "[]", expected: .array([])),
        ValidCase(json: "{}", expected: .object(JSONObject())),
        ValidCase(json: " [ ] ", expected: .array([])),
        ValidCase(json: "\t\n\r [\t\n\r 1\t\n\r ]\t\n\r ", expected: .array([.integer(1)])),
        ValidCase(json: "null", expected: .null),
        ValidCase(json: "true", expected: .bool(true)),
        ValidCase(json: "false", expected: .bool(false)),
        ValidCase(json: "42", expected: .integer(42)),
        ValidCase(json: "\"asd\"", expected: .string("asd")),
        ValidCase(
            json: "[null, 1, \"1\", {}]",
            expected: .array([.null, .integer(1), .string("1"), .object(JSONObject())])
        ),
        ValidCase(json: "[[[[]]]]", expected: .array([.array([.array([.array([])])])])),
        ValidCase(
            json: "{\"a\":[1,{\"b\":null}],\"c\":false}",
            expected: object(("a", .array([.integer(1), object(("b", .null))])), ("c", .bool(false)))
        ),
        ValidCase(json: "{\"\":0}", expected: object(("", .integer(0)))),
        ValidCase(json: "{\"a\":1,\"A\":2}", expected: object(("a", .integer(1)), ("A", .integer(2)))),
        // Numbers.
        ValidCase(json: "0", expected: .integer(0)),
        ValidCase(json: "-0", expected: .integer(0)),
        ValidCase(json: "-0.0", expected: .double(-0.0)),
        ValidCase(json: "0e1", expected: .double(0)),
        ValidCase(json: "0e+1", expected: .double(0)),
        ValidCase(json: "0E-1", expected: .double(0)),
        ValidCase(json: "1E22", expected: .double(1e22)),
        ValidCase(json: "123e45", expected: .double(123e45)),
        ValidCase(json: "123.456e78", expected: .double(123.456e78)),
        ValidCase(json: "1.5", expected: .double(1.5)),
        ValidCase(json: "-1.5e-3", expected: .double(-1.5e-3)),
        ValidCase(json: "0.1", expected: .double(0.1)),
        ValidCase(json: "1.0", expected: .double(1.0)),
        ValidCase(json: "5e-324", expected: .double(.leastNonzeroMagnitude)),
        ValidCase(json: "2.2250738585072014e-308", expected: .double(.leastNormalMagnitude)),
        ValidCase(json: "1.7976931348623157e308", expected: .double(.greatestFiniteMagnitude)),
        ValidCase(json: "123e-10000000", expected: .double(0)),
        ValidCase(json: "9223372036854775807", expected: .integer(.max)),
        ValidCase(json: "-9223372036854775808", expected: .integer(.min)),
        ValidCase(json: "9223372036854775808", expected: .double(9223372036854775808.0)),
        ValidCase(json: "-9223372036854775809", expected: .double(-9223372036854775809.0)),
        ValidCase(json: "18446744073709551615", expected: .double(18446744073709551615.0)),
        ValidCase(json: "18446744073709551616", expected: .double(18446744073709551616.0)),
        ValidCase(json: "-123123123123123123123123123123", expected: .double(-123123123123123123123123123123.0)),
        ValidCase(json: "9007199254740993", expected: .integer(9_007_199_254_740_993)),
        // Strings.
        ValidCase(json: #""\"\\\/\b\f\n\r\t""#, expected: .string("\"\\/\u{08}\u{0C}\n\r\t")),
        ValidCase(json: #""\u0000""#, expected: .string("\u{0}")),
        ValidCase(json: #""a\u0000b""#, expected: .string("a\u{0}b")),
        ValidCase(json: #""\u0041\u00e9\u20AC""#, expected: .string("Aé€")),
        ValidCase(json: #""\uD801\udc37""#, expected: .string("\u{10437}")),
        ValidCase(json: #""\uD834\uDD1E""#, expected: .string("𝄞")),
        ValidCase(json: #""\uDBFF\uDFFF""#, expected: .string("\u{10FFFF}")),
        ValidCase(json: #""\uFFFF""#, expected: .string("\u{FFFF}")),
        ValidCase(json: "\"€𝄞 é 😀\"", expected: .string("€𝄞 é 😀")),
        ValidCase(json: "\"\u{7F}\"", expected: .string("\u{7F}")),
        ValidCase(json: "\"\u{2028}\u{2029}\"", expected: .string("\u{2028}\u{2029}")),
        ValidCase(json: "\"é\\n😀\"", expected: .string("é\n😀")),
        ValidCase(json: "\"\"", expected: .string("")),
    ]

    /// Valid documents parse to the expected values, integers exactly and other numbers as doubles.
    @Test(arguments: validCases)
    func parse_acceptsValidDocument(_ testCase: ValidCase) throws {
        let value = try parse(testCase.json)
        #expect(value == testCase.expected)
    }

    /// Negative zero written with a fraction keeps its sign.
    @Test func parse_keepsSignOfNegativeZeroDouble() throws {
        guard case .double(let value) = try parse("-0.0") else {
            Issue.record("not a double")
            return
        }
        #expect(value.sign == .minus)
    }

    // Invalid documents, in the spirit of JSONTestSuite's n_ cases.
    static let invalidCases: [InvalidCase] = [
        InvalidCase("empty", "", .unexpectedEndOfInput, at: 0),
        InvalidCase("only space", " ", .unexpectedEndOfInput, at: 1),
        InvalidCase("lone [", "[", .unexpectedEndOfInput),
        InvalidCase("unclosed array", "[1", .unexpectedEndOfInput),
        InvalidCase("unclosed string in array", "[\"", .unexpectedEndOfInput),
        InvalidCase("unclosed object", "{\"a\":1", .unexpectedEndOfInput),
        InvalidCase("object key without value", "{\"a\":", .unexpectedEndOfInput),
        InvalidCase("trailing comma in array", "[1,]", .unexpectedCharacter, at: 3),
        InvalidCase("trailing comma in object", "{\"id\":0,}", .unexpectedCharacter, at: 8),
        InvalidCase("leading comma", "[,1]", .unexpectedCharacter, at: 1),
        InvalidCase("double comma", "[1,,2]", .unexpectedCharacter, at: 3),
        InvalidCase("missing comma", "[1 true]", .unexpectedCharacter, at: 3),
        InvalidCase("inner array without comma", "[3[4]]", .unexpectedCharacter, at: 2),
        InvalidCase("extra close", "[\"x\"]]", .trailingContent, at: 5),
        InvalidCase("two values", "1 2", .trailingContent, at: 2),
        InvalidCase("garbage after object", "{\"a\":\"b\"}#", .trailingContent),
        InvalidCase("mismatched close", "[1}", .unexpectedCharacter, at: 2),
        InvalidCase("colon instead of comma", "[1:2]", .unexpectedCharacter),
        InvalidCase("single quotes", "['a']", .unexpectedCharacter, at: 1),
        InvalidCase("unquoted key", "{a:1}", .unexpectedCharacter, at: 1),
        InvalidCase("number key", "{1:1}", .unexpectedCharacter, at: 1),
        InvalidCase("missing colon", "{\"a\" 1}", .unexpectedCharacter, at: 5),
        InvalidCase("comma instead of colon", "{\"a\",1}", .unexpectedCharacter),
        InvalidCase("block comment", "[1/*c*/]", .unexpectedCharacter),
        InvalidCase("line comment", "[1]//c", .trailingContent),
        InvalidCase("capitalized True", "[True]", .unexpectedCharacter, at: 1),
        InvalidCase("truncated true", "[tru]", .unexpectedCharacter, at: 4),
        InvalidCase("truncated null at end", "nul", .unexpectedEndOfInput),
        InvalidCase("NaN", "[NaN]", .unexpectedCharacter),
        InvalidCase("Infinity", "[Infinity]", .unexpectedCharacter),
        InvalidCase("-Infinity", "[-Infinity]", .invalidNumber),
        InvalidCase("angle brackets", "<.>", .unexpectedCharacter, at: 0),
        InvalidCase("form feed whitespace", "[\u{0C}]", .unexpectedCharacter, at: 1),
        InvalidCase("vertical tab whitespace", "[\u{0B}1]", .unexpectedCharacter, at: 1),
        InvalidCase("no-break space whitespace", "[\u{A0}1]", .unexpectedCharacter, at: 1),
        InvalidCase("NUL outside string", "[\u{0}]", .unexpectedCharacter, at: 1),
        InvalidCase("NUL after value", "123\u{0}", .trailingContent, at: 3),
        // Numbers.
        InvalidCase("leading +", "[+1]", .unexpectedCharacter, at: 1),
        InvalidCase("++", "[++1234]", .unexpectedCharacter, at: 1),
        InvalidCase("leading zero", "[012]", .invalidNumber, at: 2),
        InvalidCase("negative leading zero", "[-012]", .invalidNumber, at: 3),
        InvalidCase("-01", "-01", .invalidNumber, at: 2),
        InvalidCase("00", "00", .invalidNumber, at: 1),
        InvalidCase("just minus", "[-]", .invalidNumber, at: 2),
        InvalidCase("minus at end", "-", .unexpectedEndOfInput, at: 1),
        InvalidCase("minus space", "[- 1]", .invalidNumber, at: 2),
        InvalidCase("no integer part", "[.5]", .unexpectedCharacter, at: 1),
        InvalidCase("no fraction digits", "[1.]", .invalidNumber, at: 3),
        InvalidCase("fraction then exponent without digits", "[0.e1]", .invalidNumber, at: 3),
        InvalidCase("no exponent digits", "[1e]", .invalidNumber, at: 3),
        InvalidCase("exponent sign without digits", "[1e+]", .invalidNumber, at: 4),
        InvalidCase("capital E without digits", "[0E]", .invalidNumber, at: 3),
        InvalidCase("hex", "[0x1]", .unexpectedCharacter, at: 2),
        InvalidCase("space inside number", "[1 000]", .unexpectedCharacter, at: 3),
        InvalidCase("expression", "[1+2]", .unexpectedCharacter, at: 2),
        InvalidCase("huge exponent", "[1e999]", .numberOutOfRange, at: 1),
        InvalidCase("negative huge exponent", "-1e999", .numberOutOfRange, at: 0),
        InvalidCase("too large mantissa", "[" + String(repeating: "9", count: 400) + ".0]", .numberOutOfRange, at: 1),
        InvalidCase(
            "huge exponent digits",
            "[0.4e" + String(repeating: "9", count: 300) + "]",
            .numberOutOfRange,
            at: 1
        ),
        // Strings.
        InvalidCase("unescaped tab", "[\"\t\"]", .controlCharacterInString, at: 2),
        InvalidCase("unescaped newline", "[\"a\nb\"]", .controlCharacterInString, at: 3),
        InvalidCase("unescaped NUL", "[\"\u{0}\"]", .controlCharacterInString, at: 2),
        InvalidCase("unescaped control after escape", "[\"\\n\u{1F}\"]", .controlCharacterInString, at: 4),
        InvalidCase("unterminated string", "\"abc", .unexpectedEndOfInput),
        InvalidCase("unterminated after escape", "\"a\\n", .unexpectedEndOfInput),
        InvalidCase("backslash at end", "\"\\", .unexpectedEndOfInput),
        InvalidCase("escape x", #"["\x00"]"#, .invalidEscape, at: 2),
        InvalidCase("escape a", #"["\a"]"#, .invalidEscape, at: 2),
        InvalidCase("escape apostrophe", #"["\'"]"#, .invalidEscape, at: 2),
        InvalidCase("escape U uppercase", #"["\U0041"]"#, .invalidEscape, at: 2),
        InvalidCase("short unicode escape", #"["\u00A"]"#, .invalidEscape),
        InvalidCase("non-hex unicode escape", #"["\u00G1"]"#, .invalidEscape),
        InvalidCase("lone high surrogate", #"["\uD800"]"#, .loneSurrogate, at: 2),
        InvalidCase("lone high surrogate then text", #"["\uD800abcdef"]"#, .loneSurrogate, at: 2),
        InvalidCase("high surrogate then plain escape", #"["\uD800\n"]"#, .loneSurrogate, at: 2),
        InvalidCase("two high surrogates", #"["\uD800\uD800"]"#, .loneSurrogate, at: 2),
        InvalidCase("high surrogate then BMP escape", #"["\uD800\u0041"]"#, .loneSurrogate, at: 2),
        InvalidCase("lone low surrogate", #"["\uDFAA"]"#, .loneSurrogate, at: 2),
        InvalidCase("incomplete surrogate pair", #"["\uD834\uDd"]"#, .invalidEscape),
        InvalidCase("surrogate then \\u1", #"["\uD800\u1"]"#, .invalidEscape),
        // Structure.
        InvalidCase("duplicate key", #"{"a":1,"a":2}"#, .duplicateKey, at: 7),
        InvalidCase("duplicate key, same value", #"{"a":"b","a":"b"}"#, .duplicateKey, at: 9),
        InvalidCase("duplicate key via escape", #"{"a":1,"\u0061":2}"#, .duplicateKey, at: 7),
        InvalidCase("duplicate key nested", #"[{"x":{"k":1,"k":1}}]"#, .duplicateKey, at: 13),
    ]

    /// Documents that break RFC 8259 are refused with the right reason and offset.
    @Test(arguments: invalidCases)
    func parse_rejectsInvalidDocument(_ testCase: InvalidCase) throws {
        let error = try #require(parseError(testCase.bytes))
        #expect(error.reason == testCase.reason)
        if let offset = testCase.offset {
            #expect(error.offset == offset)
        }
    }

    static let utf8Cases: [InvalidCase] = [
        InvalidCase("lone continuation byte", bytes: q([0x80]), .invalidUTF8, at: 1),
        InvalidCase("Latin-1 é", bytes: q([0xE9]), .invalidUTF8, at: 1),
        InvalidCase("overlong slash (C0 AF)", bytes: q([0xC0, 0xAF]), .invalidUTF8, at: 1),
        InvalidCase("overlong NUL (C0 80)", bytes: q([0xC0, 0x80]), .invalidUTF8, at: 1),
        InvalidCase("overlong C1", bytes: q([0xC1, 0xBF]), .invalidUTF8, at: 1),
        InvalidCase("overlong 3 bytes (E0 80 AF)", bytes: q([0xE0, 0x80, 0xAF]), .invalidUTF8, at: 1),
        InvalidCase("overlong 4 bytes (F0 80 80 AF)", bytes: q([0xF0, 0x80, 0x80, 0xAF]), .invalidUTF8, at: 1),
        InvalidCase("encoded high surrogate U+D800", bytes: q([0xED, 0xA0, 0x80]), .invalidUTF8, at: 1),
        InvalidCase("encoded low surrogate U+DFFF", bytes: q([0xED, 0xBF, 0xBF]), .invalidUTF8, at: 1),
        InvalidCase("CESU-8 pair", bytes: q([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]), .invalidUTF8, at: 1),
        InvalidCase("above U+10FFFF (F4 90)", bytes: q([0xF4, 0x90, 0x80, 0x80]), .invalidUTF8, at: 1),
        InvalidCase("F5 lead byte", bytes: q([0xF5, 0x80, 0x80, 0x80]), .invalidUTF8, at: 1),
        InvalidCase("FF byte", bytes: q([0xFF]), .invalidUTF8, at: 1),
        InvalidCase("FE byte", bytes: q([0xFE]), .invalidUTF8, at: 1),
        InvalidCase("truncated 2-byte", bytes: q([0xC3]), .invalidUTF8, at: 1),
        InvalidCase("truncated 3-byte", bytes: q([0xE2, 0x82]), .invalidUTF8, at: 1),
        InvalidCase("truncated 4-byte", bytes: q([0xF0, 0x9F, 0x98]), .invalidUTF8, at: 1),
        InvalidCase("truncated then invalid", bytes: q([0xE0, 0xFF]), .invalidUTF8, at: 1),
        InvalidCase("truncated at document end", bytes: [0x22, 0xF0, 0x9F], .invalidUTF8, at: 1),
        InvalidCase("invalid after an escape", bytes: [0x22, 0x5C, 0x6E, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 3),
        InvalidCase("invalid in a key", bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], .invalidUTF8, at: 2),
        InvalidCase("invalid outside a string", bytes: [0x5B, 0xC3, 0xA9, 0x5D], .unexpectedCharacter, at: 1),
        InvalidCase("BOM then value", bytes: [0xEF, 0xBB, 0xBF, 0x5B, 0x5D], .byteOrderMark, at: 0),
        InvalidCase("BOM alone", bytes: [0xEF, 0xBB, 0xBF], .byteOrderMark, at: 0),
        InvalidCase("UTF-16LE BOM", bytes: [0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00], .unexpectedCharacter, at: 0),
    ]

    /// Ill-formed UTF-8 anywhere (overlongs, surrogates, > U+10FFFF, truncation) and a BOM are refused.
    @Test(arguments: utf8Cases)
    func parse_rejectsIllFormedUTF8(_ testCase: InvalidCase) throws {
        let error = try #require(parseError(testCase.bytes))
        #expect(error.reason == testCase.reason)
        #expect(error.offset == testCase.offset)
    }

    /// Every well-formed UTF-8 boundary sequence of Unicode Table 3-7 is accepted and decoded.
    @Test(arguments: [
        ([0x7F] as [UInt8], "\u{7F}"),
        ([0xC2, 0x80], "\u{80}"),
        ([0xDF, 0xBF], "\u{7FF}"),
        ([0xE0, 0xA0, 0x80], "\u{800}"),
        ([0xEC, 0xBF, 0xBF], "\u{CFFF}"),
        ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
        ([0xEE, 0x80, 0x80], "\u{E000}"),
        ([0xEF, 0xBF, 0xBD], "\u{FFFD}"),
        ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
        ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
        ([0xF3, 0xBF, 0xBF, 0xBF], "\u{FFFFF}"),
        ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
    ])
    func parse_acceptsWellFormedUTF8Boundaries(_ bytes: [UInt8], _ expected: String) throws {
        #expect(try JSONParser().parse(q(bytes)) == .string(expected))
        // The same bytes after an escape take the other (slow) path.
        #expect(try JSONParser().parse([0x22, 0x5C, 0x74] + bytes + [0x22]) == .string("\t" + expected))
    }

    /// The nesting limit accepts exactly `maxDepth` levels and refuses one more.
    @Test func parse_enforcesNestingLimit() throws {
        let atLimit = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(atLimit) }
        let overLimit = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = try #require(parseError(Array(overLimit.utf8)))
        #expect(error.reason == .nestingTooDeep)
        #expect(error.offset == 64)

        let objects = String(repeating: "{\"a\":", count: 4) + "1" + String(repeating: "}", count: 4)
        #expect(try parse(objects, maxDepth: 4) != .null)
        #expect(parseError(Array(objects.utf8), maxDepth: 3)?.reason == .nestingTooDeep)
        #expect(parseError(Array("[]".utf8), maxDepth: 0)?.reason == .nestingTooDeep)
        #expect(try parse("7", maxDepth: 0) == .integer(7))
    }

    /// 100,000 open brackets give a clean error, not a stack overflow, even with the limit raised.
    @Test func parse_depthBombFailsCleanly() throws {
        let bomb = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(parseError(bomb)?.reason == .nestingTooDeep)
        #expect(parseError(bomb, maxDepth: 1_000_000)?.reason == .unexpectedEndOfInput)
        let mixed = Array(String(repeating: "{\"a\":[", count: 50_000).utf8)
        #expect(parseError(mixed)?.reason == .nestingTooDeep)
    }

    /// A deep document within a raised limit parses iteratively and keeps its structure.
    @Test func parse_deepDocumentWithinRaisedLimit() throws {
        let depth = 10_000
        let json = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        var value = try parse(json, maxDepth: depth)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = try #require(elements.first)
        }
        #expect(levels == depth)
        #expect(value == .integer(1))
    }

    /// Object members keep document order and are found by key.
    @Test func parse_objectKeepsMemberOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":{"y":3,"b":4}}"#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["a"] == .integer(2))
        #expect(object["missing"] == nil)
        guard case .object(let inner)? = object["m"] else {
            Issue.record("not an object")
            return
        }
        #expect(inner.keys == ["y", "b"])
    }

    /// Duplicate keys are found in large objects too (where a hash set takes over from the linear scan).
    @Test func parse_detectsDuplicateKeyInLargeObject() throws {
        let members = (0..<100).map { "\"k\($0)\":\($0)" }
        let valid = "{" + members.joined(separator: ",") + "}"
        guard case .object(let object) = try parse(valid) else {
            Issue.record("not an object")
            return
        }
        #expect(object.count == 100)
        #expect(object["k99"] == .integer(99))

        for duplicate in ["k0", "k15", "k16", "k17", "k98"] {
            let json = "{" + members.joined(separator: ",") + ",\"\(duplicate)\":0}"
            #expect(parseError(Array(json.utf8))?.reason == .duplicateKey)
        }
    }

    /// Text with an escaped NUL keeps every byte.
    @Test func parse_keepsEmbeddedNUL() throws {
        guard case .string(let text) = try parse(#""a\u0000b\u0000""#) else {
            Issue.record("not a string")
            return
        }
        #expect(Array(text.utf8) == [0x61, 0, 0x62, 0])
    }

    /// Parsing from raw memory gives the same result as from an array.
    @Test func parse_fromRawBuffer() throws {
        let bytes = Array(#"{"a":[1,2.5,"x"]}"#.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { try JSONParser().parse($0) }
        #expect(fromBuffer == (try JSONParser().parse(bytes)))
        let emptyError = [UInt8]().withUnsafeBytes { buffer -> JSONParseError? in
            do throws(JSONParseError) {
                _ = try JSONParser().parse(buffer)
                return nil
            } catch {
                return error
            }
        }
        #expect(emptyError == JSONParseError(offset: 0, reason: .unexpectedEndOfInput))
    }

    /// The error description names the offset and reason but never the input.
    @Test func parseError_descriptionDoesNotEchoInput() throws {
        let error = try #require(parseError(Array(#"{"secret-key":"secret-value",}"#.utf8)))
        #expect(error.description == "malformed JSON at byte 29: unexpected character")
        let duplicate = try #require(parseError(Array(#"{"password":1,"password":2}"#.utf8)))
        #expect(!duplicate.description.contains("password"))
    }
}

/// The bytes wrapped in double quotes: a JSON string document.
func q(_ bytes: [UInt8]) -> [UInt8] {
    [0x22] + bytes + [0x22]
}
