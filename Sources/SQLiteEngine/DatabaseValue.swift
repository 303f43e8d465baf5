public import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// `.blob(Data())` (a zero-length blob) and `.null` are distinct, in both directions.
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html>
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is SQL NULL.
    public var isNull: Bool {
        if case .null = self {
            return true
        }
        return false
    }

    /// The storage class of the value.
    public var columnType: ColumnType {
        switch self {
        case .null: .null
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// A short description naming only the storage class, never the content.
    ///
    /// Values may be bound parameters, which must never reach logs or error messages, so the content is left out.
    /// Use pattern matching to read the content.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

// Deliberately not ExpressibleByNilLiteral: with it, `optionalValue != nil` would compare against `.null`.
extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }

    public init(floatLiteral value: Double) {
        self = .real(value)
    }

    public init(stringLiteral value: String) {
        self = .text(value)
    }

    public init(booleanLiteral value: Bool) {
        self = .integer(value ? 1 : 0)
    }
}
