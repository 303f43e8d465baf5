/// Runs the statements of the record writes: a ``Database``, or anything else that runs SQL with bound values and
/// gives back rows (SQLiteService runs them on a dqlite cluster's leader this way). The writes themselves
/// (``insertRecords(into:rows:onConflict:)``, ``updateRecord(_:key:values:)``, ``deleteRecord(_:key:)``,
/// ``deleteRecords(_:)``) are written once, over this protocol, so they make the same statements everywhere.
public protocol RecordStatementRunner {
    /// Runs `sql` (a statement with result columns, `RETURNING` included) and returns its rows, each row's values in
    /// column order.
    func recordRows(sql: String, arguments: [DatabaseValue]) throws -> [[DatabaseValue]]

    /// Runs `sql` (a statement without result columns) and returns the number of rows it changed.
    func recordChanges(sql: String, arguments: [DatabaseValue]) throws -> Int
}

extension Database: RecordStatementRunner {
    public func recordRows(sql: String, arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        let statement = try cachedStatement(sql: sql)
        defer { statement.reset() }
        try statement.bind(.positional(arguments))
        var rows: [[DatabaseValue]] = []
        let count = statement.columnCount
        while try statement.step() {
            rows.append((0..<count).map { statement.value(at: $0) })
        }
        return rows
    }

    public func recordChanges(sql: String, arguments: [DatabaseValue]) throws -> Int {
        try execute(sql: sql, arguments: .positional(arguments))
        return changes
    }
}

extension RecordStatementRunner {
    /// Deletes the rows matching `query`'s filters; refuses a query without filters (that would empty the table).
    @discardableResult
    public func deleteRecords(_ query: RecordQuery) throws -> Int {
        guard let (sql, arguments) = query.deleteStatement() else {
            throw DatabaseError.misuse("deleting records needs at least one filter")
        }
        return try recordChanges(sql: sql, arguments: arguments)
    }

    /// Inserts `rows` (each a list of column names and values) into `table`, in order, and returns each row's key
    /// (nil for a row skipped by ``RecordConflictPolicy/ignore``). Not atomic by itself: run it in a transaction or
    /// savepoint for all or nothing. A row's failure is thrown with its index (``RecordRowError``).
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
            } catch {
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
        // An empty SET is not SQL: with nothing to set, the row is read back as it is.
        guard !values.isEmpty else { return try recordRow(table, key: key) }
        var arguments = values.map(\.value)
        let keyCondition = Self.keyCondition(table, key, &arguments)
        let assignments = values.map { RecordQuery.quoted($0.column) + " = ?" }.joined(separator: ", ")
        let returning = table.key.map(RecordQuery.quoted).joined(separator: ", ")
        let sql =
            "UPDATE \(RecordQuery.quoted(table.name)) SET \(assignments) WHERE \(keyCondition) RETURNING \(returning)"
        guard let newKey = try recordRows(sql: sql, arguments: arguments).first else { return nil }
        // Read back rather than RETURNING every column: RETURNING gives the values as assigned, before the column's
        // affinity applies (9 for a REAL column that stores 9.0). By the key it returned: the update may have
        // changed the key itself.
        return try recordRow(table, key: newKey)
    }

    /// Deletes the row whose key is `key`; returns the number of rows deleted (0 or 1).
    @discardableResult
    public func deleteRecord(_ table: RecordTable, key: [DatabaseValue]) throws -> Int {
        var arguments: [DatabaseValue] = []
        let condition = Self.keyCondition(table, key, &arguments)
        return try recordChanges(
            sql: "DELETE FROM \(RecordQuery.quoted(table.name)) WHERE \(condition)",
            arguments: arguments
        )
    }

    // MARK: Helpers

    /// The row of `table` whose key is `key`, every column (``RecordTable/defaultOutputColumns``), or nil.
    private func recordRow(_ table: RecordTable, key: [DatabaseValue]) throws -> [DatabaseValue]? {
        try recordRows(sql: table.pointLookupSQL, arguments: key).first
    }

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
                    ? try recordRow(table, key: key) : try updateRecord(table, key: key, values: values)
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
        guard let key = try recordRows(sql: sql, arguments: row.map(\.value)).first else { return (nil, 0) }
        return (key, 1)
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

/// A row of ``RecordStatementRunner/insertRecords(into:rows:onConflict:)`` failed.
public struct RecordRowError: Error, Sendable {
    /// The failing row's index in the input.
    public var rowIndex: Int
    /// Its error: a ``DatabaseError`` from a ``Database``, whatever another runner throws otherwise.
    public var underlying: any Error
}
