import Testing

@testable import HTTPServer

/// `HostSyntax` accepts `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2–3.2.3): a registered name or IPv4
/// address, or an IPv6 literal in brackets, with an optional port of 1 to 5 digits up to 65535; an empty value only
/// where allowed.
@Suite struct HostSyntaxTests {
    private static func isValid(_ value: String, allowingEmpty: Bool = false) -> Bool {
        HostSyntax.isValid(Array(value.utf8), allowingEmpty: allowingEmpty)
    }

    @Test(arguments: [
        "example.com", "EXAMPLE.com", "localhost", "a", "127.0.0.1", "my-host_1.example", "host~name",
        "sub!$&'()*+,;=delims", "caf%C3%A9.example", "%41", "example.com.",
    ])
    func registeredNamesAndIPv4_areValid(host: String) {
        #expect(Self.isValid(host))
        #expect(Self.isValid(host + ":8080"))
    }

    @Test(arguments: ["[::1]", "[::]", "[2001:db8::1]", "[::ffff:192.0.2.1]", "[FE80::A:b]"])
    func ipv6Literals_areValid(host: String) {
        #expect(Self.isValid(host))
        #expect(Self.isValid(host + ":443"))
    }

    @Test(arguments: ["host:1", "host:80", "host:65535", "host:00080", "host:0", "[::1]:65535"])
    func portsOfOneToFiveDigitsUpTo65535_areValid(value: String) {
        #expect(Self.isValid(value))
    }

    /// A colon with no port (stricter than RFC 3986, on purpose), a port too large or too long, or not digits.
    @Test(arguments: [
        "host:", "host:65536", "host:99999", "host:123456", "host:8o", "host:-1", "host:+80", "host: 80", "host:80 ",
        "host:80:80", "[::1]:", "[::1]:65536", ":80", "[::1]x", "[::1]80",
    ])
    func badPorts_areInvalid(value: String) {
        #expect(!Self.isValid(value))
    }

    @Test(arguments: [
        "exa mple.com", "host/path", "host?q", "host#f", "user@host", "ho\"st", "host\t", "é.example", "<host>",
        "host%", "host%4", "host%zz", "host%4G", "%", "[::1", "::1", "[]", "[1]", "[v1.x]", "[::1%25eth0]",
        "[::g]", "[ ::1]", "[::1]]",
    ])
    func badHosts_areInvalid(value: String) {
        #expect(!Self.isValid(value))
    }

    /// Bytes that are not ASCII, or control characters, never make a valid host.
    @Test func controlAndNonASCIIBytes_areInvalid() {
        for byte: UInt8 in [0x00, 0x0A, 0x0D, 0x7F, 0x80, 0xFF] {
            #expect(!HostSyntax.isValid([UInt8(ascii: "a"), byte], allowingEmpty: false), "byte \(byte)")
        }
    }

    /// An empty `Host` is allowed where the caller says so (a `Host` field), never where a host must be named.
    @Test func empty_isValidOnlyWhenAllowed() {
        #expect(Self.isValid("", allowingEmpty: true))
        #expect(!Self.isValid("", allowingEmpty: false))
        // Allowing an empty value does not allow a port without a host.
        #expect(!Self.isValid(":80", allowingEmpty: true))
    }

    /// Any collection of bytes is taken, slices included.
    @Test func aSliceOfBytes_isChecked() {
        let bytes = Array("Host: example.com:80".utf8)
        #expect(HostSyntax.isValid(bytes[6...], allowingEmpty: false))
        #expect(!HostSyntax.isValid(bytes[4...], allowingEmpty: false))
    }
}
