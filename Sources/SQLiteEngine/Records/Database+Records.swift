/// A page of records: the rows (``RecordQuery/outputColumns``), each row's sort-key values (to continue from it),
/// and whether more rows follow in the page's direction.
public struct RecordPage: Sendable, Equatable {
    public var rows: [[DatabaseValue]]
    /// ``RecordQuery/sortKeys`` values of each row, for cursors.
    public var sortKeys: [[DatabaseValue]]
    /// Whether rows beyond the page's last one (before its first one, for a page before a row) match.
    public var hasMore: Bool
}

/// What ``Database/insertRecords(into:rows:onConflict:)`` does when a row's key or a unique constraint is taken.
public enum RecordConflictPolicy: Sendable, Hashable {
    /// The insert fails (`SQLITE_CONSTRAINT_*`).
    case error
    /// The row is skipped (only key and unique conflicts: `NOT NULL` and `CHECK` still fail).
    case ignore
    /// The existing row gets the columns the new one names; the others keep their values (an upsert on the key).
    case update
}

extension Database {
    /// The rows of `query`, in its order (for a page before a row, still in the query's order); reads one row more
    /// than its limit to tell whether more follow.
    public func fetchRecordPage(_ query: RecordQuery) throws -> RecordPage {
        let select = query.pageStatement()
        let statement = try cachedStatement(sql: select.sql)
        defer { statement.reset() }
        try statement.bind(.positional(select.arguments))
        var builder = RecordPageBuilder(query: query, statement: select)
        while try statement.step(), builder.add({ statement.value(at: $0) }) {}
        return builder.page
    }

    /// The row of `table` whose key is `key` (values in key order), or nil.
    public func fetchRecord(
        _ table: RecordTable,
        key: [DatabaseValue],
        columns: [String]? = nil
    ) throws
        -> [DatabaseValue]?
    {
        if columns == nil && key.count == table.key.count {
            let statement = try cachedStatement(sql: table.pointLookupSQL)
            defer { statement.reset() }
            try statement.bind(.positional(key))
            guard try statement.step() else { return nil }
            return (0..<table.defaultOutputColumns.count).map { statement.value(at: $0) }
        }
        var query = RecordQuery(table: table)
        query.filters = Self.keyFilters(table, key)
        query.columns = columns
        query.limit = 1
        return try fetchRecordPage(query).rows.first
    }

    /// The number of rows matching `query`'s filters.
    public func countRecords(_ query: RecordQuery) throws -> Int64 {
        let (sql, arguments) = query.countStatement()
        return try int64(sql: sql, arguments: .positional(arguments)) ?? 0
    }

    /// Deletes the rows matching `query`'s filters; refuses a query without filters (that would empty the table).
    @discardableResult
    public func deleteRecords(_ query: RecordQuery) throws -> Int {
        guard let (sql, arguments) = query.deleteStatement() else {
            throw DatabaseError.misuse("deleting records needs at least one filter")
        }
        try execute(sql: sql, arguments: .positional(arguments))
        return changes
    }

    /// Inserts `rows` (each a list of column names and values) into `table`, in order, and returns each row's key
    /// (nil for a row skipped by ``RecordConflictPolicy/ignore``). Not atomic by itself: run it in a transaction or
    /// savepoint for all or nothing. A row's failure is thrown with its index.
    public func insertRecords(
        into table: RecordTable,
        rows: [[(column: String, value: DatabaseValue)]],
        onConflict: RecordConflictPolicy
    ) throws -> (changes: Int, keys: [[DatabaseValue]?]) {
        var keys: [[DatabaseValue]?] = []
        var total = 0
        for (index, row) in rows.enumerated() {
            do {
                let (key, changed) = try insertRecord(into: table, row: row, onConflict: onConflict)
                keys.append(key)
                total += changed
            } catch let error as DatabaseError {
                throw RecordRowError(rowIndex: index, underlying: error)
            }
        }
        return (total, keys)
    }

    /// Sets the given columns of the row whose key is `key`; returns the updated row (all columns), or nil when
    /// there is no such row.
    public func updateRecord(
        _ table: RecordTable,
        key: [DatabaseValue],
        values: [(column: String, value: DatabaseValue)]
    )
        throws -> [DatabaseValue]?
    {
        var arguments = values.map(\.value)
        let keyCondition = Self.keyCondition(table, key, &arguments)
        let assignments = values.map { RecordQuery.quoted($0.column) + " = ?" }.joined(separator: ", ")
        let returning = table.key.map(RecordQuery.quoted).joined(separator: ", ")
        // An empty SET is not SQL: with nothing to set, the row is read back as it is.
        guard !values.isEmpty else { return try fetchRecord(table, key: key) }
        let sql =
            "UPDATE \(RecordQuery.quoted(table.name)) SET \(assignments) WHERE \(keyCondition) RETURNING \(returning)"
        let rows = try fetchAll(sql: sql, arguments: .positional(arguments))
        guard let newKey = rows.first.map({ row in (0..<row.count).map { row.value(at: $0) } }) else { return nil }
        // Read back rather than RETURNING every column: RETURNING gives the values as assigned, before the column's
        // affinity applies (9 for a REAL column that stores 9.0). By the key it returned: the update may have
        // changed the key itself.
        return try fetchRecord(table, key: newKey)
    }

    /// Deletes the row whose key is `key`; returns the number of rows deleted (0 or 1).
    @discardableResult
    public func deleteRecord(_ table: RecordTable, key: [DatabaseValue]) throws -> Int {
        var arguments: [DatabaseValue] = []
        let condition = Self.keyCondition(table, key, &arguments)
        try execute(
            sql: "DELETE FROM \(RecordQuery.quoted(table.name)) WHERE \(condition)",
            arguments: .positional(arguments)
        )
        return changes
    }

    // MARK: Helpers

    private func insertRecord(
        into table: RecordTable,
        row: [(column: String, value: DatabaseValue)],
        onConflict: RecordConflictPolicy
    ) throws -> (key: [DatabaseValue]?, changes: Int) {
        if onConflict == .update {
            // An upsert on the key: the row with this key gets the columns given, the others keep their values.
            // Written as UPDATE, then INSERT when no row has the key (not INSERT … ON CONFLICT DO UPDATE, whose
            // INSERT would first fail NOT NULL for the columns the object leaves out).
            let key = table.key.compactMap { key in row.first { RecordTable.sameIdentifier($0.column, key) }?.value }
            if key.count == table.key.count {
                let values = row.filter { member in
                    !table.key.contains { RecordTable.sameIdentifier($0, member.column) }
                }
                let existing =
                    values.isEmpty
                    ? try fetchRecord(table, key: key) : try updateRecord(table, key: key, values: values)
                if let existing { return (Array(existing.prefix(table.key.count)), values.isEmpty ? 0 : 1) }
            }
        }
        let name = RecordQuery.quoted(table.name)
        let columns = row.map { RecordQuery.quoted($0.column) }
        var sql =
            row.isEmpty
            ? "INSERT INTO \(name) DEFAULT VALUES"
            : "INSERT INTO \(name)(\(columns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: row.count).joined(separator: ", ") + ")"
        if onConflict == .ignore, !row.isEmpty {
            // Key and unique conflicts only: NOT NULL and CHECK still fail (unlike INSERT OR IGNORE).
            sql += " ON CONFLICT DO NOTHING"
        }
        sql += " RETURNING " + table.key.map(RecordQuery.quoted).joined(separator: ", ")
        let rows = try fetchAll(sql: sql, arguments: .positional(row.map(\.value)))
        guard let first = rows.first else { return (nil, 0) }
        return ((0..<first.count).map { first.value(at: $0) }, 1)
    }

    static func keyFilters(_ table: RecordTable, _ key: [DatabaseValue]) -> [RecordFilter] {
        zip(table.key, key).map { RecordFilter(column: $0, op: .equal, values: [$1]) }
    }

    private static func keyCondition(
        _ table: RecordTable,
        _ key: [DatabaseValue],
        _ arguments: inout [DatabaseValue]
    )
        -> String
    {
        arguments.append(contentsOf: key)
        return table.key.map { "\(RecordQuery.quoted($0)) = ?" }.joined(separator: " AND ")
    }
}

/// A row of ``Database/insertRecords(into:rows:onConflict:)`` failed.
public struct RecordRowError: Error, Sendable {
    /// The failing row's index in the input.
    public var rowIndex: Int
    public var underlying: DatabaseError
}
