import ArgumentParser
import Foundation
import SQLiteService

/// `sqlited hash-token`: prints the SHA-256 of a bearer token, the form the configuration file stores.
///
/// The token is read from standard input (one line; the line break is not part of it), so that it never appears in
/// the process list or the shell history. With `--generate`, a new token is made from 32 random bytes of the
/// system's secure generator, printed once on standard error — it cannot be recovered later — and its hash on
/// standard output.
struct HashTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-token",
        abstract: "Print the SHA-256 hash of a bearer token for the configuration file.",
        discussion: """
            Reads the token from standard input, or with --generate makes a new random one and prints it \
            once on standard error. The hash goes to standard output. See docs/security.md.
            """
    )

    @Flag(name: .long, help: "Generate a new random token (32 bytes, hex) instead of reading one.")
    var generate = false

    func run() throws {
        let token: String
        if generate {
            token = Self.newToken()
            FileHandle.standardError.write(Data("token (shown once, store it now): \(token)\n".utf8))
        } else {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            var text = String(decoding: input, as: UTF8.self)
            // A token typed or piped with echo ends with a line break, which is not part of it.
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw ValidationError("no token on standard input") }
            guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ValidationError("a bearer token is printable ASCII without spaces (RFC 6750 §2.1)")
            }
            guard text.utf8.count >= 16 else {
                throw ValidationError("the token is too short: use at least 16 characters (or --generate)")
            }
            token = text
        }
        print(TokenStore.sha256Hex(of: token))
    }

    /// 32 bytes from the system's secure generator, as 64 lower-case hexadecimal digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
