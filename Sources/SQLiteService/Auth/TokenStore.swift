import Crypto

/// The bearer tokens the service accepts, each with a name (for logs) and a role.
///
/// Only SHA-256 hashes of the tokens are kept: a leaked configuration file does not reveal a token, and tokens are
/// long random strings (`sqlited hash-token --generate` makes 32 random bytes), so a fast hash is enough — there is
/// nothing to brute-force. A presented token is hashed and compared with *every* configured hash, in constant time
/// and without stopping at a match, so that response timing does not tell how many bytes of a hash matched or
/// which entry did.
///
/// Related: RFC 6750 (bearer tokens), <https://www.rfc-editor.org/rfc/rfc6750>.
public struct TokenStore: Sendable, Hashable {
    /// One configured token.
    public struct Entry: Sendable, Hashable {
        /// A name for logs (`"ci"`, `"reporting"`); never the token.
        public var name: String
        /// The SHA-256 digest of the token (32 bytes).
        public var hash: [UInt8]
        /// What the token may do.
        public var role: TokenRole

        /// Creates an entry from the hash as written in the configuration file.
        ///
        /// - Parameters:
        ///   - name: Not empty, at most 64 characters, letters, digits, `-`, `_` and `.` (it appears in log lines).
        ///   - sha256Hex: 64 hexadecimal digits (either case), as printed by `sqlited hash-token`.
        ///   - role: The token's role.
        /// - Throws: ``TokenStoreError`` when the name or the hash is malformed.
        public init(name: String, sha256Hex: String, role: TokenRole) throws(TokenStoreError) {
            guard Self.isValidName(name) else { throw .invalidName(name) }
            guard let hash = TokenStore.decodeHex(sha256Hex), hash.count == 32 else { throw .invalidHash(name: name) }
            self.name = name
            self.hash = hash
            self.role = role
        }

        static func isValidName(_ name: String) -> Bool {
            !name.isEmpty && name.utf8.count <= 64
                && name.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                }
        }
    }

    /// The entries, in configuration order.
    public let entries: [Entry]

    /// Creates a store.
    ///
    /// - Throws: ``TokenStoreError/duplicateName(_:)`` or ``TokenStoreError/duplicateHash(_:_:)``: two entries with
    ///   one name would make logs ambiguous, and one token with two roles would make its role ambiguous.
    public init(entries: [Entry]) throws(TokenStoreError) {
        var names: [String: Int] = [:]
        var hashes: [[UInt8]: String] = [:]
        for entry in entries {
            if names[entry.name] != nil { throw .duplicateName(entry.name) }
            if let other = hashes[entry.hash] { throw .duplicateHash(other, entry.name) }
            names[entry.name] = 1
            hashes[entry.hash] = entry.name
        }
        self.entries = entries
    }

    /// Whether no token is configured (the service then asks for none).
    public var isEmpty: Bool { entries.isEmpty }

    /// The entry whose hash is the SHA-256 of `token`, or nil.
    ///
    /// Every entry is compared, whole, whatever matches: the time taken depends only on the number of entries.
    public func authenticate(token: String) -> Entry? {
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var found = -1
        for (index, entry) in entries.enumerated() {
            var difference: UInt8 = 0
            for position in 0..<32 {
                difference |= presented[position] ^ entry.hash[position]
            }
            // Branch-free selection: `mask` is all ones exactly when the digests are equal.
            let equal = Int(truncatingIfNeeded: (Int32(difference) - 1) >> 8) & 1
            let mask = -equal
            found = (found & ~mask) | (index & mask)
        }
        return found >= 0 ? entries[found] : nil
    }

    /// The SHA-256 of `token` in lower-case hexadecimal: what the configuration file holds for it.
    public static func sha256Hex(of token: String) -> String {
        let digest = SHA256.hash(data: Array(token.utf8))
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decodeHex(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }
}

/// Why a token configuration was refused. Messages name entries, never hashes or tokens.
public enum TokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A name that is empty, too long, or has characters other than letters, digits, `-`, `_`, `.`.
    case invalidName(String)
    /// A hash that is not 64 hexadecimal digits.
    case invalidHash(name: String)
    /// Two entries with one name.
    case duplicateName(String)
    /// Two entries (named) with the same hash, that is the same token.
    case duplicateHash(String, String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "invalid token name \"\(String(name.prefix(64)))\": use 1 to 64 letters, digits, '-', '_' or '.'"
        case .invalidHash(let name):
            "token \"\(name)\": the hash must be 64 hexadecimal digits (the output of sqlited hash-token)"
        case .duplicateName(let name):
            "two tokens are named \"\(name)\""
        case .duplicateHash(let first, let second):
            "tokens \"\(first)\" and \"\(second)\" have the same hash (the same token)"
        }
    }
}
