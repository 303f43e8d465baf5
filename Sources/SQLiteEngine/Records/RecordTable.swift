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
    /// The columns a row carries when none are chosen: the key's, then the others in table order.
    public let defaultOutputColumns: [String]
    /// The `SELECT` of one row by key with ``defaultOutputColumns``, built once per schema version (a point lookup
    /// is the Tables API's most frequent request).
    let pointLookupSQL: String
    /// ``RecordValueKind`` of each column, in `columns` order.
    private let kinds: [RecordValueKind]

    public init(name: String, columns: [ColumnInfo]) {
        self.name = name
        self.columns = columns
        let primaryKey = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let key = primaryKey.isEmpty ? ["rowid"] : primaryKey.map(\.name)
        self.key = key
        kinds = columns.map { RecordValueKind(declaredType: $0.type) }
        let output = key + columns.map(\.name).filter { column in !key.contains { Self.sameIdentifier($0, column) } }
        defaultOutputColumns = output
        let quotedName = Database.quotedIdentifier(name)
        pointLookupSQL =
            "SELECT " + output.map(Database.quotedIdentifier).joined(separator: ", ") + " FROM " + quotedName
            + " WHERE " + key.map { Database.quotedIdentifier($0) + " = ?" }.joined(separator: " AND ")
    }

    /// Whether the key is the implicit `rowid`.
    public var usesRowid: Bool {
        key == ["rowid"] && column(named: "rowid") == nil
    }

    /// The column called `name` (compared as SQLite compares identifiers, ignoring ASCII case), or nil.
    public func column(named name: String) -> ColumnInfo? {
        columns.first { Self.sameIdentifier($0.name, name) }
    }

    private func columnIndex(named name: String) -> Int? {
        columns.firstIndex { Self.sameIdentifier($0.name, name) }
    }

    /// The stored name of column `name`, `rowid` for the implicit key, or nil when the table has no such column.
    public func storedName(of name: String) -> String? {
        if let column = column(named: name) { return column.name }
        return usesRowid && Self.sameIdentifier(name, "rowid") ? "rowid" : nil
    }

    /// How text for column `name` (a key part or a filter value) becomes a value (see ``RecordValueKind``).
    public func valueKind(of name: String) -> RecordValueKind {
        guard let index = columnIndex(named: name) else { return .integer }  // the implicit rowid
        return kinds[index]
    }

    /// Whether two identifiers name the same thing for SQLite, which folds ASCII letters only (`sqlite3StrICmp`).
    static func sameIdentifier(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x ^ 0x20 == y && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
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
