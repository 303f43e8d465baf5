/// Why a request body is not acceptable JSON, and where.
///
/// The description names the byte offset and a short reason; it never quotes the input, which may hold values that
/// must not reach logs or error bodies.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason a document was refused.
    public enum Reason: Sendable, Equatable {
        /// The document ended inside a value, or was empty.
        case unexpectedEndOfInput
        /// A byte that cannot start or continue the expected token.
        case unexpectedCharacter
        /// A complete value is followed by something other than whitespace.
        case trailingContent
        /// A number that breaks the RFC 8259 §6 grammar (leading zero, missing digits, `+`, …).
        case invalidNumber
        /// A number whose magnitude does not fit a double (`1e999`): it cannot be represented, so it is refused
        /// rather than silently turned into infinity.
        case numberOutOfRange
        /// An unknown escape sequence, or `\u` not followed by four hexadecimal digits.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate that is not part of a high–low pair.
        case loneSurrogate
        /// An unescaped control character (U+0000–U+001F) inside a string (RFC 8259 §7).
        case controlCharacterInString
        /// Bytes that are not well-formed UTF-8 (RFC 8259 §8.1, RFC 3629).
        case invalidUTF8
        /// A UTF-8 byte order mark; RFC 8259 §8.1 forbids sending one.
        case byteOrderMark
        /// Containers nested deeper than the parser's limit.
        case nestingTooDeep
        /// An object with the same key twice.
        case duplicateKey
    }

    /// The 0-based byte offset in the document where the problem was found.
    public var offset: Int
    /// What is wrong.
    public var reason: Reason

    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "malformed JSON at byte \(offset): \(reasonText)"
    }

    private var reasonText: String {
        switch reason {
        case .unexpectedEndOfInput: "unexpected end of input"
        case .unexpectedCharacter: "unexpected character"
        case .trailingContent: "unexpected content after the top-level value"
        case .invalidNumber: "invalid number"
        case .numberOutOfRange: "number out of range of a double"
        case .invalidEscape: "invalid escape sequence"
        case .loneSurrogate: "unpaired UTF-16 surrogate escape"
        case .controlCharacterInString: "unescaped control character in string"
        case .invalidUTF8: "invalid UTF-8"
        case .byteOrderMark: "byte order mark not allowed"
        case .nestingTooDeep: "nesting too deep"
        case .duplicateKey: "duplicate object key"
        }
    }
}
