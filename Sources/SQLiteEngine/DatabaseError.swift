/// The one error type of SQLiteEngine: an SQLite error or a misuse detected by the engine.
///
/// `message` is SQLite's message (`sqlite3_errmsg`) or the engine's own; it never contains a bound value, so the
/// error can be logged and returned to clients. `sql` is the statement's SQL text as written (with placeholders).
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely; SQLite errors carry their detail in ``extendedResultCode``.
    public enum Kind: Sendable, Hashable {
        /// SQLite reported an error.
        case sqlite
        /// The arguments do not match the statement's parameters.
        case binding
        /// A deadline set with ``Database/withDeadline(_:_:)`` expired (result code `SQLITE_INTERRUPT`).
        case timeout
        /// ``Database/interrupt()`` stopped the statement (result code `SQLITE_INTERRUPT`).
        case interrupted
        /// The API was used incorrectly: closed database, exhausted cursor, statement without a row, ...
        case misuse
        /// SQL given as one statement contains several.
        case multipleStatements
        /// SQL given as one statement contains none (empty, whitespace or comments only).
        case emptyStatement
        /// A ``DatabaseQueue`` was entered again from its own queue.
        case reentrancy
        /// ``DatabasePool`` found no free reader within its wait time.
        case poolTimeout
        /// ``DatabasePool`` could not have its writer by the caller's deadline: a ``WriterLease`` held it (result code
        /// `SQLITE_BUSY`).
        case writerTimeout
    }

    public var kind: Kind
    /// The primary result code (`extendedResultCode & 0xff`).
    public var resultCode: ResultCode
    /// The extended result code (extended codes are always on).
    public var extendedResultCode: ResultCode
    public var message: String
    public var sql: String?

    /// Creates an error; `resultCode` is derived from `extendedResultCode`.
    public init(kind: Kind, extendedResultCode: ResultCode, message: String, sql: String? = nil) {
        self.kind = kind
        self.resultCode = extendedResultCode.primary
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
    }

    /// The name of the extended result code, such as `SQLITE_CONSTRAINT_UNIQUE`.
    public var codeName: String {
        extendedResultCode.name
    }

    public var description: String {
        var text = "\(codeName) (\(extendedResultCode.rawValue)): \(message)"
        if let sql {
            text += " — while executing `\(sql)`"
        }
        return text
    }

    static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(kind: .misuse, extendedResultCode: .SQLITE_MISUSE, message: message, sql: sql)
    }

    static func binding(_ message: String, sql: String?) -> DatabaseError {
        DatabaseError(kind: .binding, extendedResultCode: .SQLITE_RANGE, message: message, sql: sql)
    }

    static let databaseClosed = DatabaseError.misuse("the database connection is closed")
}
