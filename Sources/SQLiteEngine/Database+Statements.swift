internal import CSQLite

extension Database {
    /// Prepares exactly one statement, not cached.
    ///
    /// - Throws: ``DatabaseError`` with kind ``DatabaseError/Kind-swift.enum/multipleStatements`` when `sql` holds
    ///   more than one statement, ``DatabaseError/Kind-swift.enum/emptyStatement`` when it holds none (only
    ///   whitespace or comments), or ``DatabaseError/Kind-swift.enum/sqlite`` for a syntax error. Nothing runs.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/prepare.html>
    public func makeStatement(sql: String) throws -> Statement {
        try prepareSingle(sql: sql, persistent: false)
    }

    /// A prepared statement from the connection's LRU cache, prepared and cached on a miss.
    ///
    /// A statement in use (stepping, or held by an open cursor) is never handed out twice: then a fresh, uncached
    /// statement is returned. Same errors as ``makeStatement(sql:)``. The returned statement may be handed out
    /// again by the next call with the same SQL once it is not stepping, so do not keep it across such calls.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache.lookup(sql) {
            return statement
        }
        let statement = try prepareSingle(sql: sql, persistent: statementCache.capacity > 0)
        if !statementCache.contains(sql) {
            statementCache.insert(statement, for: sql)
        }
        return statement
    }

    /// Hits, misses and current size of the statement cache.
    public var statementCacheStatistics: (hits: Int, misses: Int, count: Int) {
        (statementCache.hits, statementCache.misses, statementCache.count)
    }

    /// Empties the statement cache (statements in use stay valid until released).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    /// Runs one statement to completion, skipping any rows it returns (so `PRAGMA journal_mode=WAL` is fine).
    public func execute(sql: String, arguments: StatementArguments = .none) throws {
        let statement = try cachedStatement(sql: sql)
        try statement.run(arguments)
    }

    /// Runs one statement and returns a cursor over its rows.
    public func query(sql: String, arguments: StatementArguments = .none) throws -> RowCursor {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        return RowCursor(statement: statement)
    }

    /// Runs a query and returns all its rows.
    public func fetchAll(sql: String, arguments: StatementArguments = .none) throws -> [Row] {
        try query(sql: sql, arguments: arguments).allRows()
    }

    /// Runs a query and returns its first row, or `nil`.
    public func fetchOne(sql: String, arguments: StatementArguments = .none) throws -> Row? {
        let cursor = try query(sql: sql, arguments: arguments)
        defer { cursor.close() }
        return try cursor.next()
    }

    /// Runs every statement of `script` in order, without parameters.
    ///
    /// The script is split by SQLite's parser (the tail pointer of `sqlite3_prepare_v3`), never at `;`, so string
    /// literals, comments and trigger bodies may contain semicolons. Each statement is prepared just before it
    /// runs, so a statement may use objects created by an earlier one. The first error stops the script; earlier
    /// statements stay done.
    ///
    /// - Parameter onRow: Called with each row of statements that return rows; returning `false` stops the whole
    ///   script.
    public func executeScript(_ sql: String, onRow: ((Row) throws -> Bool)? = nil) throws {
        let statements = statements(in: sql)
        while let statement = try statements.next() {
            if let onRow, statement.columnCount > 0 {
                let layout = RowLayout(statement: statement)
                while try statement.step() {
                    if try !onRow(Row(statement: statement, layout: layout)) {
                        statement.reset()
                        return
                    }
                }
            } else {
                while try statement.step() {}
            }
        }
    }

    /// The statements of `script`, prepared one at a time as they are requested.
    public func statements(in script: String) -> ScriptStatements {
        ScriptStatements(database: self, script: script)
    }

    /// Runs a query and returns the first column of its first row; `nil` when there is no row.
    public func scalar(sql: String, arguments: StatementArguments = .none) throws -> DatabaseValue? {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// The first column of the first row as an integer; `nil` for no row, NULL or a non-integer value.
    public func int64(sql: String, arguments: StatementArguments = .none) throws -> Int64? {
        try scalar(sql: sql, arguments: arguments).flatMap(Int64.fromDatabaseValue)
    }

    /// The first column of the first row as text; `nil` for no row or NULL.
    public func string(sql: String, arguments: StatementArguments = .none) throws -> String? {
        try scalar(sql: sql, arguments: arguments).flatMap(String.fromDatabaseValue)
    }

    /// The first column of the first row as a double; `nil` for no row, NULL or a non-numeric value.
    public func double(sql: String, arguments: StatementArguments = .none) throws -> Double? {
        try scalar(sql: sql, arguments: arguments).flatMap(Double.fromDatabaseValue)
    }

    /// Checks that `sql` is exactly one valid statement by preparing it; nothing runs.
    public func validateSQL(_ sql: String) throws {
        _ = try makeStatement(sql: sql)
    }

    // MARK: - Preparing

    func prepareSingle(sql: String, persistent: Bool) throws -> Statement {
        let (connection, handle) = try openConnection()
        var utf8 = Array(sql.utf8)
        if utf8.contains(0) {
            throw DatabaseError.misuse("SQL text contains a NUL byte", sql: sql)
        }
        utf8.append(0)
        return try utf8.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let length = Int32(buffer.count - 1)
            var statementHandle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let flags = UInt32(persistent ? SQLITE_PREPARE_PERSISTENT : 0)
            let code = sqlite3_prepare_v3(handle, base, length, flags, &statementHandle, &tail)
            guard code == SQLITE_OK else {
                throw connection.error(code: code, sql: sql)
            }
            guard let statementHandle else {
                throw DatabaseError(
                    kind: .emptyStatement,
                    extendedResultCode: .SQLITE_MISUSE,
                    message: "the SQL text contains no statement",
                    sql: sql
                )
            }
            let statement = Statement(connection: connection, handle: statementHandle)
            if let tail, tail - base < Int(length) {
                // Prepare (never run) the rest: whitespace and comments prepare to nothing; anything else is a
                // second statement, even a malformed one.
                var next: OpaquePointer?
                let nextCode = sqlite3_prepare_v3(handle, tail, length - Int32(tail - base), 0, &next, nil)
                if let next {
                    sqlite3_finalize(next)
                }
                if nextCode != SQLITE_OK || next != nil {
                    throw DatabaseError(
                        kind: .multipleStatements,
                        extendedResultCode: .SQLITE_MISUSE,
                        message: "the SQL text contains more than one statement",
                        sql: sql
                    )
                }
            }
            return statement
        }
    }
}
