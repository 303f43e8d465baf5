/// Recognises transaction-control statements by their first keyword.
///
/// The contract refuses `BEGIN`, `COMMIT`, `END` and a plain `ROLLBACK` on every
/// endpoint, and savepoint statements outside `/transaction`. The statement is
/// known to be a single statement by the time this runs, and SQLite's grammar
/// puts these keywords first (nothing — not even `WITH` — may precede them), so
/// the first keyword after white space and comments decides. This is decided
/// per SQL text rather than in the authorizer, because the authorizer runs only
/// when a statement is prepared, and a cached statement is reused across
/// endpoints with different rules.
enum TransactionControl: Equatable {
    /// `BEGIN`, `COMMIT`, `END`, `ROLLBACK` (without `TO`).
    case transaction
    /// `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`.
    case savepoint

    /// Classifies `sql`, or returns nil for any other statement.
    static func classify(_ sql: String) -> TransactionControl? {
        var scanner = SQLKeywordScanner(sql)
        guard let first = scanner.nextKeyword() else { return nil }
        switch first {
        case "BEGIN", "COMMIT", "END":
            return .transaction
        case "SAVEPOINT", "RELEASE":
            return .savepoint
        case "ROLLBACK":
            // ROLLBACK [TRANSACTION] [TO [SAVEPOINT] name]
            var next = scanner.nextKeyword()
            if next == "TRANSACTION" { next = scanner.nextKeyword() }
            return next == "TO" ? .savepoint : .transaction
        default:
            return nil
        }
    }
}

/// Reads upper-cased keywords from SQL text, skipping white space and comments.
struct SQLKeywordScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ sql: String) {
        // Only the first few tokens matter; avoid copying a multi-megabyte statement.
        self.bytes = Array(sql.utf8.prefix(4096))
    }

    /// The next word made of letters, digits and `_`, upper-cased; nil at the
    /// end or when the next token is not a word.
    mutating func nextKeyword() -> String? {
        skipTrivia()
        let start = index
        while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self).uppercased()
    }

    private mutating func skipTrivia() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                return
            }
        }
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "_")
    }
}
