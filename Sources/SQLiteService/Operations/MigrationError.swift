/// Why the migrations could not be listed or applied.
///
/// `file` names the migration file at fault (its name, not its path) when there is one; `message` is SQLite's
/// message for a failing statement, or what is wrong with the directory.
public struct MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file at fault, such as `003_add_index.sql`; `nil` for a problem with the directory or the database as a
    /// whole.
    public var file: String?
    /// What went wrong.
    public var message: String

    public init(file: String?, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String {
        if let file {
            return "migration \(file) failed: \(message)"
        }
        return "migrations: \(message)"
    }
}
