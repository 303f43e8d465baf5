import Testing

@testable import HTTPServer

/// `HTTP2Upgrade` decides which HTTP/1.1 requests switch to h2c (RFC 7540 §3.2): `Upgrade` listing `h2c`,
/// `Connection` listing `Upgrade` and `HTTP2-Settings`, and one `HTTP2-Settings` field in base64url; any other
/// request is served as HTTP/1.1. It also names the connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2).
@Suite struct HTTP2UpgradeTests {
    private static let complete = [
        ("Upgrade", "h2c"), ("Connection", "Upgrade, HTTP2-Settings"), ("HTTP2-Settings", "AAMAAABk"),
    ]

    private static func payload(_ headers: [(String, String)], version: HTTPVersion = .http1_1) -> [UInt8]? {
        HTTP2Upgrade.settingsPayload(
            of: HTTPRequest(method: "GET", target: "/health", version: version, headers: HTTPHeaders(headers))
        )
    }

    @Test(arguments: [
        ("", [UInt8]()), ("AAMAAABkAAQAAP__", [0, 3, 0, 0, 0, 0x64, 0, 4, 0, 0, 0xFF, 0xFF]),
        ("AAMAAABk", [0, 3, 0, 0, 0, 0x64]),
        ("AAMAAABk==", [0, 3, 0, 0, 0, 0x64]),
        ("AA", [0]), ("AAA", [0, 0]), ("-_", [0xFB]), ("Zm9vYg", Array("foob".utf8)), ("Zm9vYg==", Array("foob".utf8)),
    ])
    func base64URL_decodes(text: String, bytes: [UInt8]) {
        #expect(HTTP2Upgrade.base64URLDecoded(text) == bytes)
    }

    /// Standard base64's `+` and `/`, a length that leaves six lone bits, data after padding, spaces.
    @Test(arguments: ["AAMAAAB+", "AAMAAAB/", "A", "AA=A", "AA A", "AAAAA", "é", "AA\n"])
    func base64URL_refusesWhatIsNotBase64URL(text: String) {
        #expect(HTTP2Upgrade.base64URLDecoded(text) == nil)
    }

    @Test func upgradeRequest_needsEveryPieceOfTheHandshake() {
        let complete = Self.complete
        #expect(Self.payload(complete) == [0, 3, 0, 0, 0, 0x64])
        #expect(Self.payload(Array(complete.dropFirst())) == nil, "no Upgrade")
        #expect(Self.payload([complete[0], ("Connection", "Upgrade"), complete[2]]) == nil, "no HTTP2-Settings token")
        #expect(Self.payload([complete[0], ("Connection", "HTTP2-Settings"), complete[2]]) == nil, "no Upgrade token")
        #expect(Self.payload([complete[0], complete[1]]) == nil, "no HTTP2-Settings field")
        #expect(Self.payload(complete + [complete[2]]) == nil, "two HTTP2-Settings")
        #expect(Self.payload([("Upgrade", "websocket")] + complete.dropFirst()) == nil)
        #expect(Self.payload([("Upgrade", "h2")] + complete.dropFirst()) == nil, "h2 is TLS only")
    }

    /// Only an HTTP/1.1 request may upgrade: not HTTP/1.0 (RFC 9110 §7.8), nor a request already on HTTP/2.
    @Test(arguments: [HTTPVersion.http1_0, .http2])
    func upgradeRequest_isHTTP11Only(version: HTTPVersion) {
        #expect(Self.payload(Self.complete, version: version) == nil)
    }

    /// Tokens are matched whatever their case, among others, across repeated fields, with spaces and empty elements.
    @Test func upgradeRequest_readsListFieldsAsLists() {
        let spread = [
            ("upgrade", "websocket, H2C"), ("connection", "keep-alive"), ("CONNECTION", " upgrade ,, http2-settings"),
            ("http2-settings", "AAMAAABk"),
        ]
        #expect(Self.payload(spread) == [0, 3, 0, 0, 0, 0x64])
        let split = [
            ("Upgrade", "foo"), ("Upgrade", "h2c"), ("Connection", "Upgrade"), ("Connection", "HTTP2-Settings"),
        ]
        #expect(Self.payload(split + [("HTTP2-Settings", "")]) == [])
    }

    /// A settings field that is not base64url fails the upgrade: the request is served as HTTP/1.1.
    @Test func upgradeRequest_withBadSettings_isNotUpgraded() {
        let complete = Self.complete
        #expect(Self.payload([complete[0], complete[1], ("HTTP2-Settings", "AAMAAAB+")]) == nil)
        #expect(Self.payload([complete[0], complete[1], ("HTTP2-Settings", "A")]) == nil)
    }

    @Test func connectionSpecificFields_areKnownWhateverTheirCase() {
        for name in ["Connection", "keep-alive", "PROXY-CONNECTION", "Transfer-Encoding", "upgrade", "TE", "te"] {
            #expect(HTTP2Upgrade.isConnectionSpecific(name), "\(name)")
        }
        let others = ["Content-Length", "Trailer", "T", "TEE", "", "X-Connection", String(repeating: "x", count: 80)]
        for name in others {
            #expect(!HTTP2Upgrade.isConnectionSpecific(name), "\(name)")
        }
    }

    @Test func switchingProtocols_isThe101Response() {
        let text = String(decoding: HTTP2Upgrade.switchingProtocols, as: UTF8.self)
        #expect(text == "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
    }
}
