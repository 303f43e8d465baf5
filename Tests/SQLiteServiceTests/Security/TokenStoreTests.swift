import SQLiteService
import Testing

/// The token store: hashes, validation, lookup.
@Suite struct TokenStoreTests {
    /// The hash is SHA-256 in lower-case hex (FIPS 180-4 test vector "abc").
    @Test func sha256Hex_matchesKnownVector() {
        #expect(TokenStore.sha256Hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// A token authenticates to its own entry, whichever position it has; others to none.
    @Test func authenticate_findsTheMatchingEntry() throws {
        let store = try TokenStore(
            entries: (0..<5).map { index in
                try TokenStore.Entry(
                    name: "t\(index)",
                    sha256Hex: TokenStore.sha256Hex(of: "token-\(index)"),
                    role: index == 4 ? .admin : .read
                )
            }
        )
        for index in 0..<5 {
            #expect(store.authenticate(token: "token-\(index)")?.name == "t\(index)")
        }
        #expect(store.authenticate(token: "token-4")?.role == .admin)
        #expect(store.authenticate(token: "token-5") == nil)
        #expect(store.authenticate(token: "") == nil)
        #expect(try TokenStore(entries: []).authenticate(token: "token-0") == nil)
    }

    /// Upper-case hex hashes are accepted.
    @Test func entry_acceptsUpperCaseHex() throws {
        let entry = try TokenStore.Entry(name: "a", sha256Hex: TokenStore.sha256Hex(of: "x").uppercased(), role: .read)
        #expect(try TokenStore(entries: [entry]).authenticate(token: "x")?.name == "a")
    }

    /// Malformed hashes are refused: wrong length, non-hex, the token itself instead of its hash.
    @Test func entry_rejectsMalformedHash() {
        for hash in [
            "", "abc", String(repeating: "g", count: 64), String(repeating: "a", count: 63),
            String(repeating: "a", count: 66), "my-secret-token",
        ] {
            #expect(throws: TokenStoreError.invalidHash(name: "n")) {
                try TokenStore.Entry(name: "n", sha256Hex: hash, role: .read)
            }
        }
    }

    /// Names must be short and safe to log.
    @Test func entry_rejectsBadNames() {
        let hash = TokenStore.sha256Hex(of: "x")
        for name in ["", "has space", "new\nline", String(repeating: "a", count: 65), "quote\""] {
            #expect(throws: TokenStoreError.invalidName(name)) {
                try TokenStore.Entry(name: name, sha256Hex: hash, role: .read)
            }
        }
    }

    /// Duplicate names and duplicate tokens are refused.
    @Test func store_rejectsDuplicates() throws {
        let a = try TokenStore.Entry(name: "a", sha256Hex: TokenStore.sha256Hex(of: "x"), role: .read)
        let b = try TokenStore.Entry(name: "b", sha256Hex: TokenStore.sha256Hex(of: "x"), role: .admin)
        let a2 = try TokenStore.Entry(name: "a", sha256Hex: TokenStore.sha256Hex(of: "y"), role: .read)
        #expect(throws: TokenStoreError.duplicateHash("a", "b")) { try TokenStore(entries: [a, b]) }
        #expect(throws: TokenStoreError.duplicateName("a")) { try TokenStore(entries: [a, a2]) }
    }

    /// Roles are ordered: admin grants everything, read only read.
    @Test func roles_grantInOrder() {
        #expect(TokenRole.admin.grants(.write) && TokenRole.admin.grants(.read) && TokenRole.admin.grants(.admin))
        #expect(TokenRole.write.grants(.read) && TokenRole.write.grants(.write) && !TokenRole.write.grants(.admin))
        #expect(TokenRole.read.grants(.read) && !TokenRole.read.grants(.write))
    }
}

/// The listen-address rule's helper.
@Suite struct LoopbackTests {
    /// Loopback addresses in every accepted spelling.
    @Test func isLoopback_acceptsLoopbackAddresses() {
        for host in [
            "127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "localhost.", "::1", "[::1]",
            "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "[::ffff:127.0.0.2]",
        ] {
            #expect(isLoopback(host: host), "\(host)")
        }
    }

    /// Wildcards, public and private addresses, names and malformed text are not loopback.
    @Test func isLoopback_rejectsOtherAddresses() {
        for host in [
            "0.0.0.0", "::", "[::]", "10.0.0.1", "192.168.1.1", "128.0.0.1", "::2", "::ffff:10.0.0.1",
            "example.com", "localhost.example.com", "", "127.0.0.1.nip.io", "::1%lo", "1.2.3", "[::1",
        ] {
            #expect(!isLoopback(host: host), "\(host)")
        }
    }
}
