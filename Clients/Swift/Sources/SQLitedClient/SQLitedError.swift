/// An answer of the server other than success: the contract's error body with its HTTP status.
public struct SQLitedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The stable, machine-readable code: `SQLITE_CONSTRAINT_UNIQUE`, `BIND_ERROR`, `UNAVAILABLE`, …
    public var code: String
    public var message: String
    /// The SQLite extended result code, exactly when `code` starts with `SQLITE_`.
    public var sqliteCode: Int?
    /// The failing statement of a `/batch` or `/transaction`.
    public var statementIndex: Int?

    public init(status: Int, code: String, message: String, sqliteCode: Int? = nil, statementIndex: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.sqliteCode = sqliteCode
        self.statementIndex = statementIndex
    }

    public var description: String { "\(status) \(code): \(message)" }
}
