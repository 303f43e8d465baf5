import Testing

@testable import HTTPServer

/// `HTTPHeaders` finds fields by name whatever their case (RFC 9110 §5.1), keeps every field of a name and the order
/// the fields were given in, and splits list fields into their elements (RFC 9110 §5.6.1).
@Suite struct HTTPHeadersTests {
    /// The names and values in iteration order, as `name: value` strings.
    private static func lines(_ headers: HTTPHeaders) -> [String] {
        headers.map { "\($0.name): \($0.value)" }
    }

    /// Lookup ignores the case of ASCII letters in a name, and only that.
    @Test func subscript_findsANameWhateverItsCase() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(headers["Content-Type"] == "text/plain")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Type "] == nil)
        #expect(headers["Content_Type"] == nil)
        #expect(headers[""] == nil)
    }

    /// A name with a non-ASCII letter matches only the same bytes: no Unicode case folding or canonical equivalence.
    @Test func subscript_foldsASCIICaseOnly() {
        let headers: HTTPHeaders = ["X-\u{212A}": "kelvin", "X-é": "e"]
        #expect(headers["x-k"] == nil)
        #expect(headers["X-K"] == nil)
        #expect(headers["x-\u{212A}"] == "kelvin")
        #expect(headers["X-É"] == nil)
        #expect(headers["x-é"] == "e")
        // "é" precomposed (U+00E9) against "e" + combining acute (U+0301): other bytes, another name.
        #expect(headers["X-e\u{301}"] == nil)
    }

    /// `firstValue(for:)` gives the first field of a name and whether the name is sent again, whatever its case.
    @Test func firstValue_saysWhetherTheNameIsRepeated() {
        let headers = HTTPHeaders([("Accept", "a"), ("Other", "x"), ("accept", "b"), ("Single", "s")])
        #expect(headers.firstValue(for: "ACCEPT")?.value == "a")
        #expect(headers.firstValue(for: "ACCEPT")?.isRepeated == true)
        #expect(headers.firstValue(for: "single")?.value == "s")
        #expect(headers.firstValue(for: "single")?.isRepeated == false)
        #expect(headers.firstValue(for: "Missing") == nil)
    }

    /// The subscript gives the first field of a name; `values(for:)` gives all of them in order.
    @Test func values_giveEveryFieldOfANameInOrder() {
        let headers = HTTPHeaders([("Accept", "a"), ("Other", "x"), ("accept", "b"), ("ACCEPT", "c")])
        #expect(headers["accept"] == "a")
        #expect(headers.values(for: "Accept") == ["a", "b", "c"])
        #expect(headers.values(for: "Missing") == [])
        #expect(headers.count == 4)
    }

    @Test func contains_ignoresCase() {
        let headers: HTTPHeaders = ["Upgrade": "h2c"]
        #expect(headers.contains("upgrade"))
        #expect(headers.contains("UPGRADE"))
        #expect(!headers.contains("Upgrad"))
        #expect(!HTTPHeaders().contains("Upgrade"))
    }

    /// `add` appends after the fields already there, keeping those of the same name.
    @Test func add_appendsAndKeepsEarlierFieldsOfTheName() {
        var headers = HTTPHeaders()
        #expect(headers.isEmpty)
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "Vary", value: "Accept")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(!headers.isEmpty)
        #expect(Self.lines(headers) == ["Set-Cookie: a=1", "Vary: Accept", "set-cookie: b=2"])
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
    }

    /// `set` removes every field of the name, whatever its case, and appends one at the end with the name as given.
    @Test func set_replacesEveryFieldOfTheNameByOneAtTheEnd() {
        var headers = HTTPHeaders([("X-A", "1"), ("Vary", "Accept"), ("x-a", "2"), ("Y", "y")])
        headers.set(name: "X-a", value: "3")
        #expect(Self.lines(headers) == ["Vary: Accept", "Y: y", "X-a: 3"])
        headers.set(name: "New", value: "n")
        #expect(Self.lines(headers) == ["Vary: Accept", "Y: y", "X-a: 3", "New: n"])
    }

    /// `remove` drops every field of the name, whatever its case, and leaves the others in order.
    @Test func remove_dropsEveryFieldOfTheName() {
        var headers = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3"), ("C", "4")])
        headers.remove(name: "A")
        #expect(Self.lines(headers) == ["B: 2", "C: 4"])
        headers.remove(name: "Missing")
        #expect(headers.count == 2)
        headers.remove(name: "b")
        headers.remove(name: "c")
        #expect(headers.isEmpty)
    }

    /// A dictionary literal keeps the order it was written in and names as written.
    @Test func dictionaryLiteral_keepsItsOrder() {
        let headers: HTTPHeaders = ["Z": "1", "a": "2", "M": "3"]
        #expect(Self.lines(headers) == ["Z: 1", "a: 2", "M: 3"])
        #expect(headers.description == "Z: 1, a: 2, M: 3")
        #expect(HTTPHeaders().description == "")
    }

    /// Headers are a value: changing a copy leaves the original as it was.
    @Test func aCopy_isIndependent() {
        let original: HTTPHeaders = ["A": "1"]
        var copy = original
        #expect(copy.hasSameStorage(as: original))
        copy.add(name: "B", value: "2")
        copy.set(name: "A", value: "changed")
        #expect(Self.lines(original) == ["A: 1"])
        #expect(Self.lines(copy) == ["B: 2", "A: changed"])
        #expect(!copy.hasSameStorage(as: original))
    }

    /// List elements are split on commas, trimmed of spaces and tabs, lower-cased, and empty ones dropped, across
    /// every field of the name.
    @Test func listTokens_splitTrimLowercaseAndDropEmptyElements() {
        let headers = HTTPHeaders([
            ("Connection", " Upgrade ,\tHTTP2-Settings"), ("Other", "x"), ("connection", ",, close ,"),
        ])
        #expect(headers.listTokens(for: "Connection") == ["upgrade", "http2-settings", "close"])
        #expect(headers.listTokens(for: "Missing") == [])
        #expect(HTTPHeaders.listTokens(of: ["", " , ", "a b , C"]) == ["a b", "c"])
    }

    /// Only SP and HTAB count as optional whitespace.
    @Test func trimmingOWS_dropsSpacesAndTabsAtBothEndsOnly() {
        #expect(Substring(" \t a b \t ").trimmingOWS() == "a b")
        #expect(Substring("\u{A0}a\r").trimmingOWS() == "\u{A0}a\r")
        #expect(Substring(" \t ").trimmingOWS() == "")
    }

    /// The name comparison is by ASCII case only, including for names of the same length that differ in one byte.
    @Test func namesEqual_comparesBytesFoldingASCIICase() {
        #expect(HTTPHeaders.namesEqual("Content-Length", "content-LENGTH"))
        #expect(!HTTPHeaders.namesEqual("Content-Length", "Content-Lengths"))
        #expect(!HTTPHeaders.namesEqual("a", "b"))
        #expect(HTTPHeaders.namesEqual("", ""))
        // '@' (0x40) and '`' (0x60) differ by the case bit but are not letters.
        #expect(!HTTPHeaders.namesEqual("@", "`"))
        #expect(!HTTPHeaders.namesEqual("[", "{"))
    }
}
