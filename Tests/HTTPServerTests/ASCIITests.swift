import Testing

@testable import HTTPServer

/// `ASCII` classifies bytes as the HTTP grammar does (`tchar` of RFC 9110 §5.6.2, field value characters of
/// RFC 9110 §5.5, hex digits) and decodes field bytes without losing any.
@Suite struct ASCIITests {
    private static let allBytes = (0...255).map { UInt8($0) }
    private static let digits = Set((0x30...0x39).map { UInt8($0) })
    private static let letters = Set((0x41...0x5A).map { UInt8($0) } + (0x61...0x7A).map { UInt8($0) })

    /// `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT /
    /// ALPHA`, checked against every byte.
    @Test func tokenCharacters_areExactlyTheRFCs() {
        let tchar = Set("!#$%&'*+-.^_`|~".utf8).union(Self.digits).union(Self.letters)
        for byte in Self.allBytes {
            #expect(ASCII.isTokenCharacter(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }

    /// SP, HTAB, visible ASCII and obs-text (0x80–0xFF) may appear in a field value; other controls (CR, LF, NUL,
    /// DEL) may not.
    @Test func fieldValueCharacters_areVisibleASCIISpaceTabAndObsText() {
        for byte in Self.allBytes {
            let expected = byte == 0x20 || byte == 0x09 || (0x21...0x7E).contains(byte) || byte >= 0x80
            #expect(ASCII.isFieldValueCharacter(byte) == expected, "byte \(byte)")
        }
        for byte: UInt8 in [0x00, 0x0A, 0x0D, 0x7F, 0x1F] { #expect(!ASCII.isFieldValueCharacter(byte)) }
    }

    @Test func hexValue_readsBothCasesAndNothingElse() {
        let hex = Array("0123456789abcdef".utf8)
        let upperHex = Array("0123456789ABCDEF".utf8)
        for byte in Self.allBytes {
            let expected = hex.firstIndex(of: byte) ?? upperHex.firstIndex(of: byte)
            #expect(ASCII.hexValue(byte) == expected.map { UInt8($0) }, "byte \(byte)")
            #expect(ASCII.isHexDigit(byte) == (expected != nil), "byte \(byte)")
        }
    }

    /// Only the 26 upper-case ASCII letters change; `@`, `[` and bytes above 0x7F (which differ from others by the
    /// same bit) stay.
    @Test func lowercased_changesUpperCaseASCIILettersOnly() {
        for byte in Self.allBytes {
            let expected = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            #expect(ASCII.lowercased(byte) == expected, "byte \(byte)")
        }
    }

    @Test func tokenString_isNonEmptyAndAllTokenCharacters() {
        #expect(ASCII.isTokenString("GET"))
        #expect(ASCII.isTokenString("x-custom_method.1~"))
        #expect(!ASCII.isTokenString(""))
        #expect(!ASCII.isTokenString("GE T"))
        #expect(!ASCII.isTokenString("a:b"))
        #expect(!ASCII.isTokenString("é"))
    }

    /// Valid UTF-8 decodes as UTF-8; anything else as ISO 8859-1, byte for character, so that no byte is lost.
    @Test func decodeFieldBytes_isUTF8WhenValidElseLatin1() {
        #expect(ASCII.decodeFieldBytes(Array("text/plain".utf8)) == "text/plain")
        #expect(ASCII.decodeFieldBytes([UInt8]()) == "")
        #expect(ASCII.decodeFieldBytes(Array("café ☕".utf8)) == "café ☕")
        #expect(ASCII.decodeFieldBytes([0x63, 0x61, 0x66, 0xE9]) == "café")
        #expect(ASCII.decodeFieldBytes([0xFF]) == "\u{FF}")
        // One invalid byte makes the whole value Latin-1, its valid UTF-8 sequences included.
        #expect(ASCII.decodeFieldBytes([0xC3, 0xA9, 0xFF]) == "\u{C3}\u{A9}\u{FF}")
        let latin1 = ASCII.decodeFieldBytes([0x80, 0x81, 0xFE])
        #expect(latin1.unicodeScalars.map(\.value) == [0x80, 0x81, 0xFE])
        // Slices decode their own bytes.
        let line = Array("X: caf\u{E9}".utf8)
        #expect(ASCII.decodeFieldBytes(line[3...]) == "café")
    }

    /// `hasSameBytes` compares UTF-8 bytes, not canonical equivalence: the Kelvin sign equals `K` under `==` only.
    @Test func hasSameBytes_comparesBytesNotCanonicalEquivalence() {
        #expect("K" == "\u{212A}")
        #expect(!"K".hasSameBytes(as: "\u{212A}"))
        #expect(!"\u{E9}".hasSameBytes(as: "e\u{301}"))
        #expect("application/json".hasSameBytes(as: "application/" + "json"))
        #expect(!"application/json".hasSameBytes(as: "application/jsoN"))
        #expect(!"a".hasSameBytes(as: "ab"))
        #expect("".hasSameBytes(as: ""))
        #expect(!"".hasSameBytes(as: "a"))
    }
}
