internal import CSQLite

/// The statements of an SQL script, prepared one at a time with `sqlite3_prepare_v3`'s tail pointer.
///
/// Each statement is prepared only when requested, after the previous one ran, so it may depend on objects the
/// previous ones created. ``index`` counts the statements returned so far, so a caller reports the failing
/// statement's position: after ``next()`` throws, the failed statement's 0-based index is ``index``.
///
/// A statement that fails to prepare for a reason other than its syntax (no such table or column, an authorizer
/// denial) can be stepped over with ``skipFailedStatement()``, so that a caller may go on with the rest of the
/// script; past a syntax error the end of the statement is unknown and the script cannot go on.
///
/// Usage:
/// ```swift
/// let statements = db.statements(in: script)
/// while let statement = try statements.next() { while try statement.step() {} }
/// ```
public final class ScriptStatements {
    private let database: Database
    private let bytes: [CChar]
    private var offset = 0
    /// The number of statements returned by ``next()`` so far (and stepped over by ``skipFailedStatement()``).
    public private(set) var index = 0
    /// Where the statement that last failed to prepare ends, when that is known for certain.
    private var failedStatementEnd: Int?

    init(database: Database, script: String) {
        self.database = database
        self.bytes = Array(script.utf8CString)
    }

    /// Prepares and returns the next statement, or `nil` when only whitespace and comments remain.
    ///
    /// Statements are not cached.
    public func next() throws -> Statement? {
        failedStatementEnd = nil
        let (connection, handle) = try database.openConnection()
        let length = bytes.count - 1  // without the terminating NUL
        while offset < length {
            // Skip leading whitespace so that each statement's SQL text starts with the statement.
            if Self.isWhitespace(bytes[offset]) {
                offset += 1
                continue
            }
            let result: (OpaquePointer?, Int, Int32) = bytes.withUnsafeBufferPointer { buffer in
                let start = buffer.baseAddress! + offset
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(handle, start, Int32(length - offset), 0, &statement, &tail)
                let consumed = tail.map { $0 - start } ?? (length - offset)
                return (statement, consumed, code)
            }
            let (statementHandle, consumed, code) = result
            if code != SQLITE_OK {
                let error = connection.error(code: code, sql: String(decoding: remainingBytes(), as: UTF8.self))
                failedStatementEnd = statementEnd(afterFailure: error, consumed: consumed)
                throw error
            }
            offset += max(consumed, 1)
            if let statementHandle {
                index += 1
                return Statement(connection: connection, handle: statementHandle)
            }
        }
        return nil
    }

    /// Steps over the statement whose preparation just failed, so that ``next()`` goes on with the one after it.
    ///
    /// - Returns: false when that is not possible: the statement could not be parsed (a syntax error, an
    ///   unterminated string, input that ends mid-statement) or SQLite stopped reading it part way (a trigger body
    ///   whose table does not exist), so where it ends is unknown; the script cannot go on.
    public func skipFailedStatement() -> Bool {
        guard let end = failedStatementEnd else { return false }
        failedStatementEnd = nil
        offset = end
        index += 1
        return true
    }

    /// The end of a statement that failed to prepare, or nil when it is not known for certain.
    ///
    /// SQLite's tail pointer says where it stopped reading, which is the statement's end only if SQLite read the
    /// statement through: that holds when the text it read is one complete statement ending with its `;`
    /// (`sqlite3_complete`, which knows string literals, comments and trigger bodies) and the failure came after
    /// parsing (name resolution, the authorizer: `SQLITE_ERROR` or `SQLITE_AUTH`), not from the parser or
    /// tokenizer. A parser error can also be
    /// reported at the `;` (`SELECT 1 +;`); those are refused by their message, which for parser and tokenizer
    /// failures is fixed in SQLite's source (`near "X": syntax error`, `unrecognized token: "X"`, `incomplete
    /// input`).
    private func statementEnd(afterFailure error: DatabaseError, consumed: Int) -> Int? {
        // Name resolution and the authorizer fail with these two codes; anything else (an interrupt, memory) is
        // no statement's fault and ends the script.
        switch error.resultCode {
        case .SQLITE_ERROR: if Self.isParserMessage(error.message) { return nil }
        case .SQLITE_AUTH: break
        default: return nil
        }
        let end = offset + consumed
        guard end <= bytes.count - 1 else { return nil }
        var last = end - 1
        while last > offset, Self.isWhitespace(bytes[last]) { last -= 1 }
        guard last > offset, bytes[last] == CChar(UInt8(ascii: ";")) else { return nil }
        let text = String(decoding: bytes[offset...last].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return sqlite3_complete(text) != 0 ? end : nil
    }

    private static func isParserMessage(_ message: String) -> Bool {
        message.hasSuffix(": syntax error") || message.hasPrefix("unrecognized token:")
            || message == "incomplete input"
    }

    private static func isWhitespace(_ byte: CChar) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private func remainingBytes() -> [UInt8] {
        bytes[offset..<(bytes.count - 1)].map { UInt8(bitPattern: $0) }
    }
}

@available(*, unavailable, message: "ScriptStatements is confined to its database's thread")
extension ScriptStatements: Sendable {}
