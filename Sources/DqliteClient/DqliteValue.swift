/// A database value as the dqlite wire protocol carries it, typed exactly.
///
/// The first five cases are SQLite's storage classes. The last three are the protocol's special types: the server
/// sends them for result columns *declared* `DATETIME`, `DATE` or `TIMESTAMP` (``unixTime`` for an INTEGER value,
/// ``iso8601`` for TEXT or NULL, NULL arriving as an empty string) or `BOOLEAN` (``boolean``, NULL arriving as
/// `false`). As parameters the server binds ``iso8601`` as TEXT and ``boolean`` as INTEGER 0 or 1, and refuses
/// ``unixTime``.
public enum DqliteValue: Sendable, Hashable {
    case integer(Int64)
    case float(Double)
    /// UTF-8 text without NUL characters (the protocol NUL-terminates text).
    case text(String)
    case blob([UInt8])
    case null
    case unixTime(Int64)
    case iso8601(String)
    case boolean(Bool)

    /// The protocol's type code of the value.
    public var type: DqliteValueType {
        switch self {
        case .integer: .integer
        case .float: .float
        case .text: .text
        case .blob: .blob
        case .null: .null
        case .unixTime: .unixTime
        case .iso8601: .iso8601
        case .boolean: .boolean
        }
    }
}

/// The type codes of values in parameter and row tuples (SQLite's codes, then dqlite's `DQLITE_UNIXTIME` 9,
/// `DQLITE_ISO8601` 10 and `DQLITE_BOOLEAN` 11).
public enum DqliteValueType: UInt8, Sendable, Hashable {
    case integer = 1
    case float = 2
    case text = 3
    case blob = 4
    case null = 5
    case unixTime = 9
    case iso8601 = 10
    case boolean = 11
}
