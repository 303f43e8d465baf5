/// One entry of the schema table (`sqlite_schema`, or `sqlite_temp_schema` for temporary objects).
///
/// Related SQLite documentation: <https://www.sqlite.org/schematab.html>
public struct SchemaObject: Sendable, Hashable {
    /// `table`, `index`, `view` or `trigger`.
    public var type: String
    public var name: String
    /// The table or view the object belongs to (its own name for a table or view).
    public var tblName: String
    /// The SQL that created the object, or `nil` for automatic indexes.
    public var sql: String?
    /// Whether the object lives in the `temp` schema.
    public var isTemporary: Bool

    /// Whether SQLite created the object for its own use (names starting with `sqlite_`).
    public var isInternal: Bool {
        name.lowercased().hasPrefix("sqlite_")
    }

    public init(type: String, name: String, tblName: String, sql: String?, isTemporary: Bool = false) {
        self.type = type
        self.name = name
        self.tblName = tblName
        self.sql = sql
        self.isTemporary = isTemporary
    }
}
