import Testing

@Suite struct SLTFormatterTests {
    /// Values print per the declared column letter, as sqllogictest's SQLite driver printed them.
    @Test(arguments: [
        (JSONValue.null, SLTColumnType.integer, "NULL"),
        (.null, .text, "NULL"),
        (.null, .real, "NULL"),
        (.number("42"), .integer, "42"),
        (.number("42"), .real, "42.000"),
        (.number("42"), .text, "42"),
        (.number("-7.9"), .integer, "-7"),
        (.number("2.5"), .real, "2.500"),
        (.number("2.0"), .text, "2.0"),
        (.number("1e+20"), .text, "1.0e+20"),
        (.number("4294967297"), .integer, "1"),
        (.string(""), .text, "(empty)"),
        (.string("abc"), .text, "abc"),
        (.string("a\tb\u{7F}é"), .text, "a@b@@@"),
        (.string("ab\u{0}cd"), .text, "ab"),
        (.string("\u{0}cd"), .text, "(empty)"),
        (.string("12abc"), .integer, "12"),
        (.string("abc"), .integer, "0"),
        (.string("3.25x"), .real, "3.250"),
        (.object(["base64": .string("aGk=")]), .text, "hi"),
        (.object(["base64": .string("")]), .text, "(empty)"),
        (.object(["base64": .string("Nw==")]), .integer, "7"),
        (.bool(true), .integer, "1"),
    ])
    func print_followsColumnType(value: JSONValue, type: SLTColumnType, expected: String) throws {
        #expect(try SLTFormatter.print(value, as: type) == expected)
    }

    /// Arrays and other objects are not result values.
    @Test func print_rejectsNonValues() {
        #expect(throws: SLTFormatter.FormatError.self) { try SLTFormatter.print(.array([]), as: .text) }
        #expect(throws: SLTFormatter.FormatError.self) {
            try SLTFormatter.print(.object(["x": .string("aGk=")]), as: .text)
        }
        #expect(throws: SLTFormatter.FormatError.self) {
            try SLTFormatter.printRows([[.number("1")]], types: [.integer, .integer])
        }
    }

    /// rowsort orders whole rows by byte comparison; valuesort orders every value; nosort keeps the order.
    @Test func sort_appliesModes() {
        let values = ["b", "2", "a", "10", "a", "1"]
        #expect(SLTFormatter.sort(values, columnCount: 2, mode: .nosort) == values)
        #expect(SLTFormatter.sort(values, columnCount: 2, mode: .rowsort) == ["a", "1", "a", "10", "b", "2"])
        #expect(SLTFormatter.sort(values, columnCount: 2, mode: .valuesort) == ["1", "10", "2", "a", "a", "b"])
        // strcmp order: uppercase before lowercase, '(' before digits.
        #expect(
            SLTFormatter.sort(["a", "B", "(empty)", "0"], columnCount: 1, mode: .valuesort)
                == ["(empty)", "0", "B", "a"]
        )
    }

    /// The hash is MD5 over each value followed by a newline.
    @Test func hashLine_hashesValuesWithNewlines() {
        #expect(SLTFormatter.md5(of: ["1", "2"]) == MD5.hex("1\n2\n"))
        #expect(SLTFormatter.md5(of: []) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(SLTFormatter.hashLine(for: ["1", "2"]) == "2 values hashing to \(MD5.hex("1\n2\n"))")
    }
}
