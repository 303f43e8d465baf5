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

    // MARK: Helpers

    static func keyFilters(_ table: RecordTable, _ key: [DatabaseValue]) -> [RecordFilter] {
        zip(table.key, key).map { RecordFilter(column: $0, op: .equal, values: [$1]) }
    }
}
