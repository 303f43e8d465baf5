/// A table as the record operations see it: its columns and its key.
///
/// The key is the `PRIMARY KEY` columns in the order of the `PRIMARY KEY(...)` clause, or the implicit `rowid` (named
/// `rowid`) for a table without one. Views and virtual tables are not record tables.
public struct RecordTable: Sendable, Hashable {
    /// The name as stored in the schema.
    public let name: String
    public let columns: [ColumnInfo]
    /// The key's column names, in key order (`["rowid"]` for a table without a primary key).
    public let key: [String]

    public init(name: String, columns: [ColumnInfo]) {
        self.name = name
        self.columns = columns
        let primaryKey = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        self.key = primaryKey.isEmpty ? ["rowid"] : primaryKey.map(\.name)
    }

    /// Whether the key is the implicit `rowid`.
    public var usesRowid: Bool {
        key == ["rowid"] && column(named: "rowid") == nil
    }

    /// The column called `name` (compared as SQLite compares identifiers, ignoring ASCII case), or nil.
    public func column(named name: String) -> ColumnInfo? {
        columns.first { Self.sameIdentifier($0.name, name) }
    }

    /// The stored name of column `name`, `rowid` for the implicit key, or nil when the table has no such column.
    public func storedName(of name: String) -> String? {
        if let column = column(named: name) { return column.name }
        return usesRowid && Self.sameIdentifier(name, "rowid") ? "rowid" : nil
    }

    /// How text for column `name` (a key part or a filter value) becomes a value (see ``RecordValueKind``).
    public func valueKind(of name: String) -> RecordValueKind {
        guard let column = column(named: name) else { return .integer }  // the implicit rowid
        return RecordValueKind(declaredType: column.type)
    }

    static func sameIdentifier(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}

/// How a column's text form (a key in a URL, a filter value) converts to a value, from its declared type by
/// SQLite's affinity rules (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>).
public enum RecordValueKind: Sendable, Hashable {
    /// INTEGER affinity: an integer literal (`007` is 7; `7.5` or anything else does not convert).
    case integer
    /// REAL or NUMERIC affinity: a number (an integer literal stays an integer, exactly).
    case number
    /// TEXT affinity: the text as it is.
    case text
    /// Declared `BLOB`: base64.
    case blob
    /// No declared type: compared as text.
    case untyped

    public init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") {
            self = .blob
        } else if type.isEmpty {
            self = .untyped
        } else {
            self = .number
        }
    }
}
