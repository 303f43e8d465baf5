/// One column of a table, as `PRAGMA table_info` reports it.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_table_info>
public struct ColumnInfo: Sendable, Hashable {
    /// The column's position, from 0.
    public var cid: Int
    public var name: String
    /// The declared type as written (may be empty).
    public var type: String
    public var notNull: Bool
    /// The default value's SQL text (`'abc'`, `0`, `CURRENT_TIMESTAMP`), or `nil` when there is none.
    public var defaultValue: String?
    /// The column's 1-based position in the primary key, or 0 when it is not part of it.
    public var primaryKeyIndex: Int

    public init(cid: Int, name: String, type: String, notNull: Bool, defaultValue: String?, primaryKeyIndex: Int) {
        self.cid = cid
        self.name = name
        self.type = type
        self.notNull = notNull
        self.defaultValue = defaultValue
        self.primaryKeyIndex = primaryKeyIndex
    }
}
