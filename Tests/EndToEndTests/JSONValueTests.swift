import Testing

@Suite struct JSONValueTests {
    /// Integers keep all 64 bits and reals keep their fraction, unlike JSONSerialization.
    @Test func parse_keepsNumbersExactlyAsWritten() throws {
        let value = try JSONValue(parsing: #"{"max": 9223372036854775807, "min": -9223372036854775808, "real": 1.0}"#)
        #expect(value["max"] == .number("9223372036854775807"))
        #expect(value["max"]?.int64Value == Int64.max)
        #expect(value["min"]?.int64Value == Int64.min)
        #expect(value["real"] == .number("1.0"))
        #expect(value["real"]?.isRealLiteral == true)
        #expect(value["real"]?.int64Value == nil)
        #expect(value["max"]?.isRealLiteral == false)
    }

    /// Escapes, surrogate pairs and embedded NUL decode to the right scalars.
    @Test func parse_decodesStringEscapes() throws {
        let value = try JSONValue(parsing: #"["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00", "x\u0000y"]"#)
        #expect(value[0]?.stringValue == "a\"b\\c/\n\t")
        #expect(value[1]?.stringValue == "é😀")
        #expect(value[2]?.stringValue == "x\u{0}y")
        #expect(value[2]?.stringValue?.utf8.count == 3)
    }

    /// Malformed documents are rejected rather than guessed at.
    @Test(arguments: [
        "", "[1,]", "{\"a\":1,}", "01", "1.", "-", "[1] 2", "\"\u{1}\"", "\"\\ud800\"", "tru", "{a:1}", "\"abc",
        "1e", "[\"\\x\"]",
    ])
    func parse_rejectsMalformedJSON(text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: text) }
    }

    /// Object members keep their order and duplicates; lookup returns the last duplicate.
    @Test func parse_keepsMemberOrderAndDuplicates() throws {
        let value = try JSONValue(parsing: #"{"b": 1, "a": 2, "b": 3}"#)
        #expect(value.objectMembers?.map(\.key) == ["b", "a", "b"])
        #expect(value["b"] == .number("3"))
    }

    /// Serialization escapes control characters and round-trips through the parser.
    @Test func serialized_roundTrips() throws {
        let original = JSONValue.object([
            "sql": .string("SELECT 'a\"b'\n\u{0}\u{1F}é"),
            "n": .number("-12.5e3"),
            "list": .array([.null, .bool(true), .bool(false), .integer(Int64.max)]),
        ])
        let text = original.serialized
        #expect(text.contains("\\u0000"))
        #expect(text.contains("\\u001f"))
        #expect(try JSONValue(parsing: text) == original)
    }
}
