/// A condition on one column, as ObjectiveFMDB's find-by-example builds them: equality (several values: `IN`),
/// comparisons and NULL tests. Values are always bound, never spliced.
public struct RecordFilter: Sendable, Hashable {
    public enum Operator: Sendable, Hashable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        /// `IS NULL` when true, `IS NOT NULL` when false (the filter's values are ignored).
        case isNull(Bool)
    }

    /// The column's stored name (``RecordTable/storedName(of:)``).
    public var column: String
    public var op: Operator
    public var values: [DatabaseValue]

    public init(column: String, op: Operator, values: [DatabaseValue]) {
        self.column = column
        self.op = op
        self.values = values
    }
}

/// One column of a sort order.
public struct RecordOrdering: Sendable, Hashable {
    public var column: String
    public var descending: Bool

    public init(column: String, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }
}

/// A keyset page: the rows that follow (or precede) the row whose sort-key values are `values`.
public struct RecordCursorPosition: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        case after, before
    }

    public var direction: Direction
    /// The values of ``RecordQuery/sortKeys`` of the row the page starts from, in order.
    public var values: [DatabaseValue]

    public init(direction: Direction, values: [DatabaseValue]) {
        self.direction = direction
        self.values = values
    }
}

/// Find by example, count and keyset paging over one ``RecordTable``, as SQL with bound arguments.
///
/// The sort order is ``ordering`` followed by the key columns it does not already hold (ascending), so it is total and
/// a page boundary names exactly one row. A page after (or before) a row is a keyset condition on those sort keys —
/// never `OFFSET` — written so that it is exact with NULLs (which SQLite sorts first ascending and last descending),
/// duplicate sort values and mixed directions, and led by a plain range bound on the first sort key so that an
/// index on it is used as a range scan.
public struct RecordQuery: Sendable {
    public var table: RecordTable
    public var filters: [RecordFilter] = []
    public var ordering: [RecordOrdering] = []
    /// The columns to return (stored names); nil for all. The key columns are always returned, first.
    public var columns: [String]?
    public var limit: Int?
    public var position: RecordCursorPosition?

    public init(table: RecordTable) {
        self.table = table
    }

    /// The full sort order: ``ordering``, then the key columns not in it, ascending.
    public var sortKeys: [RecordOrdering] {
        let ordered = Set(ordering.map { $0.column.lowercased() })
        return ordering + table.key.filter { !ordered.contains($0.lowercased()) }.map { RecordOrdering(column: $0) }
    }

    /// The columns each row carries, in order: the key columns, then the others asked for (all by default; for a
    /// table keyed by `rowid`, `rowid` first).
    public var outputColumns: [String] {
        guard let columns else { return table.defaultOutputColumns }
        return table.key + columns.filter { column in !table.key.contains { RecordTable.sameIdentifier($0, column) } }
    }

    /// The `SELECT` for the page: ``outputColumns``, then any sort key not among them (for the caller to build
    /// cursors from: ``SelectStatement/sortKeyIndices``), in the page's order (reversed for a page `before` a row:
    /// the caller reverses the rows back).
    public func selectStatement() -> SelectStatement {
        selectStatement(reversingBefore: true)
    }

    /// The `SELECT` of a streamed list: ``outputColumns`` only, in the list's order whatever the position's direction
    /// (the rows before a cursor's row come in the list's order too), with ``limit`` if any.
    public func streamStatement() -> SelectStatement {
        var query = self
        query.streamsOutputOnly = true
        return query.selectStatement(reversingBefore: false)
    }

    /// Set by ``streamStatement()``: sort keys outside the output are ordered by, not selected.
    private var streamsOutputOnly = false

    private func selectStatement(reversingBefore: Bool) -> SelectStatement {
        var selected = outputColumns
        var sortKeyIndices: [Int] = []
        for key in sortKeys {
            if let index = selected.firstIndex(where: { RecordTable.sameIdentifier($0, key.column) }) {
                sortKeyIndices.append(index)
            } else if streamsOutputOnly {
                continue
            } else {
                sortKeyIndices.append(selected.count)
                selected.append(key.column)
            }
        }
        var arguments: [DatabaseValue] = []
        var sql = "SELECT " + selected.map(Self.quoted).joined(separator: ", ") + " FROM " + Self.quoted(table.name)
        var conditions = filterConditions(&arguments)
        if let position {
            conditions.append(keysetCondition(position, &arguments))
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let reverse = reversingBefore && position?.direction == .before
        sql +=
            " ORDER BY "
            + sortKeys.map { key in
                Self.quoted(key.column) + (key.descending != reverse ? " DESC" : "")
            }.joined(separator: ", ")
        if let limit {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        return SelectStatement(
            sql: sql,
            arguments: arguments,
            outputCount: outputColumns.count,
            sortKeyIndices: sortKeyIndices
        )
    }

    /// `SELECT count(*)` of the rows matching ``filters`` (the position and limit do not count).
    public func countStatement() -> (sql: String, arguments: [DatabaseValue]) {
        var arguments: [DatabaseValue] = []
        let conditions = filterConditions(&arguments)
        let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return ("SELECT count(*) FROM " + Self.quoted(table.name) + condition, arguments)
    }

    /// `DELETE` of the rows matching ``filters``; nil without a filter (that would delete every row).
    public func deleteStatement() -> (sql: String, arguments: [DatabaseValue])? {
        var arguments: [DatabaseValue] = []
        let conditions = filterConditions(&arguments)
        guard !conditions.isEmpty else { return nil }
        return ("DELETE FROM " + Self.quoted(table.name) + " WHERE " + conditions.joined(separator: " AND "), arguments)
    }

    /// A `SELECT` with what its caller needs to read it.
    public struct SelectStatement: Sendable {
        public var sql: String
        public var arguments: [DatabaseValue]
        /// The first `outputCount` columns are ``RecordQuery/outputColumns``.
        public var outputCount: Int
        /// Where each of ``RecordQuery/sortKeys`` is among the selected columns.
        public var sortKeyIndices: [Int]

        /// How many values a row of it must have to be read: its output columns and every sort key.
        public var columnCount: Int { max(outputCount, (sortKeyIndices.max() ?? -1) + 1) }
    }

    // MARK: SQL

    private func filterConditions(_ arguments: inout [DatabaseValue]) -> [String] {
        filters.map { filter in
            let column = Self.quoted(filter.column)
            func compare(_ op: String) -> String {
                arguments.append(filter.values.first ?? .null)
                return "\(column) \(op) ?"
            }
            switch filter.op {
            case .equal where filter.values.count > 1:
                arguments.append(contentsOf: filter.values)
                return "\(column) IN (" + Array(repeating: "?", count: filter.values.count).joined(separator: ", ")
                    + ")"
            case .equal: return compare("=")
            case .notEqual: return compare("<>")
            case .less: return compare("<")
            case .lessOrEqual: return compare("<=")
            case .greater: return compare(">")
            case .greaterOrEqual: return compare(">=")
            case .isNull(true): return "\(column) IS NULL"
            case .isNull(false): return "\(column) IS NOT NULL"
            }
        }
    }

    /// The rows after (or before) the cursor's row in the sort order: for each sort key in turn, the earlier keys
    /// equal (`IS`, so that NULL equals NULL) and this one past the cursor's value, ORed together.
    private func keysetCondition(_ position: RecordCursorPosition, _ arguments: inout [DatabaseValue]) -> String {
        let keys = sortKeys
        var terms: [String] = []
        var termsArguments: [DatabaseValue] = []
        var bound: String?
        for (index, key) in keys.enumerated() where index < position.values.count {
            let value = position.values[index]
            // "Greater" in ascending terms: after a row in an ascending key, or before it in a descending one.
            let greater = key.descending == (position.direction == .before)
            let column = Self.quoted(key.column)
            var termArguments: [DatabaseValue] = []
            var parts: [String] = []
            for earlier in 0..<index {
                parts.append("\(Self.quoted(keys[earlier].column)) IS ?")
                termArguments.append(position.values[earlier])
            }
            // SQLite sorts NULL below every value.
            switch (greater, value) {
            case (true, .null):
                parts.append("\(column) IS NOT NULL")
            case (true, _):
                parts.append("\(column) > ?")
                termArguments.append(value)
            case (false, .null):
                continue  // nothing sorts below NULL
            case (false, _):
                parts.append("(\(column) < ? OR \(column) IS NULL)")
                termArguments.append(value)
            }
            if index == 0, value != .null {
                // A plain bound on the first key, implied by the terms, so that an index on it is a range scan.
                if greater {
                    bound = "\(column) >= ?"
                } else if !isNullable(key.column) {
                    bound = "\(column) <= ?"
                }
            }
            terms.append("(" + parts.joined(separator: " AND ") + ")")
            termsArguments.append(contentsOf: termArguments)
        }
        let condition = terms.isEmpty ? "0" : "(" + terms.joined(separator: " OR ") + ")"
        if let bound, let first = position.values.first {
            arguments.append(first)
            arguments.append(contentsOf: termsArguments)
            return "\(bound) AND \(condition)"
        }
        arguments.append(contentsOf: termsArguments)
        return condition
    }

    /// Whether `column` may hold NULL (`rowid` and `NOT NULL` columns cannot; a PRIMARY KEY column of a rowid
    /// table can, as SQLite allows there).
    private func isNullable(_ column: String) -> Bool {
        guard let info = table.column(named: column) else { return false }
        if info.notNull { return false }
        return
            !(info.primaryKeyIndex > 0 && RecordValueKind(declaredType: info.type) == .integer && table.key.count == 1)
    }

    static func quoted(_ name: String) -> String {
        Database.quotedIdentifier(name)
    }
}
