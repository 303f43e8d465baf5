import Testing

@testable import sqlited

/// The `hash-token` subcommand's parts (it is registered by the daemon's command tree).
@Suite struct HashTokenCommandTests {
    /// A generated token is 64 lower-case hex digits (32 random bytes), different every time.
    @Test func newToken_is32RandomBytesInHex() {
        let first = HashTokenCommand.newToken()
        let second = HashTokenCommand.newToken()
        #expect(first.count == 64)
        #expect(first.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(first != second)
    }

    /// The command parses `--generate` and refuses unknown options.
    @Test func parse_acceptsGenerateOnly() throws {
        #expect(try HashTokenCommand.parse(["--generate"]).generate)
        #expect(try !HashTokenCommand.parse([]).generate)
        #expect(throws: (any Error).self) { try HashTokenCommand.parse(["--token", "x"]) }
    }
}
