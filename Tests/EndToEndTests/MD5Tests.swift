import Testing

@Suite struct MD5Tests {
    /// The RFC 1321 §A.5 test suite.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        (
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f"
        ),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
    ])
    func hex_matchesRFC1321Vectors(input: String, digest: String) {
        #expect(MD5.hex(input) == digest)
    }

    /// Feeding the input in pieces gives the same digest as feeding it at once (block boundaries at 55/56/64).
    @Test func update_isIndependentOfChunking() {
        let text = String(repeating: "0123456789abcdef", count: 20)
        for split in [0, 1, 55, 56, 63, 64, 65, 200] {
            var md5 = MD5()
            md5.update(text.prefix(split).utf8)
            md5.update(text.dropFirst(split).utf8)
            #expect(md5.finalizeHex() == MD5.hex(text))
        }
    }
}
