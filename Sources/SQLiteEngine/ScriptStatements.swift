internal import CSQLite

/// The statements of an SQL script, prepared one at a time with `sqlite3_prepare_v3`'s tail pointer.
///
/// Each statement is prepared only when requested, after the previous one ran, so it may depend on objects the
/// previous ones created. ``index`` counts the statements returned so far, so a caller reports the failing
/// statement's position: after ``next()`` throws, the failed statement's 0-based index is ``index``.
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
    /// The number of statements returned by ``next()`` so far.
    public private(set) var index = 0

    init(database: Database, script: String) {
        self.database = database
        self.bytes = Array(script.utf8CString)
    }

    /// Prepares and returns the next statement, or `nil` when only whitespace and comments remain.
    ///
    /// Statements are not cached.
    public func next() throws -> Statement? {
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
                throw connection.error(code: code, sql: String(decoding: remainingBytes(), as: UTF8.self))
            }
            offset += max(consumed, 1)
            if let statementHandle {
                index += 1
                return Statement(connection: connection, handle: statementHandle)
            }
        }
        return nil
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
