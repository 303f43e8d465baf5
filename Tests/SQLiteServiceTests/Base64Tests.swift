import Testing

@testable import SQLiteService

@Suite struct Base64Tests {
    /// Canonical padded base64 decodes (RFC 4648 §10 vectors), the empty string to zero bytes.
    @Test(arguments: [
        ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"), ("+/+/", "\u{FB}\u{FF}\u{BF}"),
    ])
    func decode_acceptsCanonicalBase64(_ text: String, _ expected: String) throws {
        let bytes = try #require(Base64.decode(text))
        if expected.unicodeScalars.allSatisfy({ $0.value < 0x80 }) {
            #expect(bytes == Array(expected.utf8))
        } else {
            #expect(bytes == expected.unicodeScalars.map { UInt8($0.value) })
        }
    }

    /// Anything but canonical, padded, standard-alphabet base64 is refused.
    @Test(arguments: [
        "Zg", "Zg=", "Zm8", "Zm9vY", "Zh==", "Zm9=", "Zg==Zg==", "Zm9v====", "=Zm9", "Z===", "====",
        "Zm 9v", " Zm9v", "Zm9v\n", "Zm9v\r\n", "Zm-_", "Zm9v_A==", "Zm9vYg=\u{0}", "Zm9vYé==",
    ])
    func decode_rejectsNonCanonicalBase64(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
