internal import CSQLite

extension Database {
    /// How a transaction takes its locks.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    public enum TransactionKind: Sendable, Hashable {
        /// Locks are taken by the first read (shared) and first write (reserved).
        case deferred
        /// The write lock is taken at BEGIN; use it for every write transaction (a deferred one that reads, then
        /// writes after another connection committed fails with `SQLITE_BUSY_SNAPSHOT`).
        case immediate
        /// As immediate; in WAL mode the same as immediate.
        case exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED TRANSACTION"
            case .immediate: "BEGIN IMMEDIATE TRANSACTION"
            case .exclusive: "BEGIN EXCLUSIVE TRANSACTION"
            }
        }
    }

    /// Whether a transaction is open (`!sqlite3_get_autocommit`).
    ///
    /// Always truthful: SQLite may end a transaction on its own (an interrupted or failed statement can roll it
    /// back), and this reflects that.
    public var isInTransaction: Bool {
        guard let handle = connection?.handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Begins a transaction; an error (such as a transaction already open, or `SQLITE_BUSY`) is thrown.
    public func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        try execute(sql: kind.beginSQL)
    }

    /// Commits the open transaction.
    public func commit() throws {
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls the open transaction back.
    public func rollback() throws {
        try execute(sql: "ROLLBACK TRANSACTION")
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it (or the commit) throws.
    ///
    /// When the commit fails the transaction is rolled back and the commit's error thrown.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: (Database) throws -> T) throws -> T {
        try beginTransaction(kind)
        let result: T
        do {
            result = try body(self)
            try commit()
        } catch {
            if isInTransaction {
                try? rollback()
            }
            throw error
        }
        return result
    }

    /// Opens a savepoint named `name` (quoted as an identifier).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_savepoint.html>
    public func beginSavepoint(_ name: String) throws {
        try runSavepointStatement(.begin, name: name)
    }

    /// Releases the savepoint `name` and every savepoint opened after it (committing when it is the outermost one
    /// and no transaction was open).
    public func releaseSavepoint(_ name: String) throws {
        try runSavepointStatement(.release, name: name)
    }

    /// Undoes the changes made since savepoint `name` was opened; the savepoint stays open.
    public func rollbackToSavepoint(_ name: String) throws {
        try runSavepointStatement(.rollback, name: name)
    }

    /// Runs a savepoint statement, prepared once per name (``SavepointStatements``).
    private func runSavepointStatement(_ kind: SavepointStatements.Kind, name: String) throws {
        if let statement = savepointStatements.statement(kind, name: name), statement.isValid {
            try statement.run()
            return
        }
        let statement = try makeStatement(sql: kind.sql(quotedName: Self.quotedIdentifier(name)))
        savepointStatements.remember(statement, kind, name: name)
        try statement.run()
    }

    /// Runs `body` inside a new, automatically named savepoint.
    ///
    /// Returning releases the savepoint; throwing rolls back to it and releases it, undoing only what `body` did.
    /// Savepoints nest, inside or outside a transaction.
    public func inSavepoint<T>(_ body: (Database) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "sqlited_savepoint_\(savepointDepth)"
        try beginSavepoint(name)
        let result: T
        do {
            result = try body(self)
        } catch {
            // The savepoint may be gone already when SQLite rolled the whole transaction back on its own.
            try? rollbackToSavepoint(name)
            try? releaseSavepoint(name)
            throw error
        }
        try releaseSavepoint(name)
        return result
    }

    /// `name` as an SQL identifier in double quotes, inner quotes doubled.
    ///
    /// Scanned as bytes, without Foundation: the Tables API quotes every name of every statement it builds, and
    /// `replacingOccurrences` (through `NSString`) was a fifth of a point lookup's time.
    static func quotedIdentifier(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var quoted = "\""
        for scalar in name.unicodeScalars {
            if scalar == "\"" { quoted.unicodeScalars.append(scalar) }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }
}
