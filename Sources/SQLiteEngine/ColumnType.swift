internal import CSQLite

/// The storage class of a column value in the current row (`sqlite3_column_type`).
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/column_blob.html>
public enum ColumnType: Sendable, Hashable {
    case null
    case integer
    case real
    case text
    case blob

    init(sqliteType: Int32) {
        switch sqliteType {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .real
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }
}
