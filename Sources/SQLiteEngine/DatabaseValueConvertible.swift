public import Foundation

/// A Swift type that converts to and from a ``DatabaseValue``.
///
/// Conversions from the database are lenient in the way SQLite's own are where no information is lost (an INTEGER
/// read as `Double`, a REAL with no fraction read as `Int64`, numeric TEXT read as a number) and return `nil`
/// otherwise (NULL, a BLOB read as a number, a REAL with a fraction read as an integer, an out-of-range value).
public protocol DatabaseValueConvertible {
    /// The value to store.
    var databaseValue: DatabaseValue { get }

    /// Converts a stored value, or returns `nil` when it cannot be represented (including NULL).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        self
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? {
        value
    }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .integer(self)
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let int):
            return int
        case .real(let double):
            return Int64(exactly: double)
        case .text(let text):
            return Int64(text.trimmingCharacters(in: .whitespaces))
        case .null, .blob:
            return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .integer(Int64(self))
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).flatMap { Int(exactly: $0) }
    }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .integer(Int64(self))
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(value).flatMap { Int32(exactly: $0) }
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .real(self)
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .integer(let int):
            return Double(int)
        case .real(let double):
            return double
        case .text(let text):
            return Double(text.trimmingCharacters(in: .whitespaces))
        case .null, .blob:
            return nil
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .text(self)
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let text):
            return text
        case .integer(let int):
            return String(int)
        case .real(let double):
            return String(double)
        case .blob(let data):
            // SQLite reads a BLOB as TEXT byte for byte; invalid UTF-8 is repaired rather than dropped.
            return String(decoding: data, as: UTF8.self)
        case .null:
            return nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .blob(self)
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let data):
            return data
        case .text(let text):
            return Data(text.utf8)
        case .null, .integer, .real:
            return nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    /// `true` is stored as the INTEGER 1, `false` as 0.
    public var databaseValue: DatabaseValue {
        .integer(self ? 1 : 0)
    }

    /// Any non-zero number is `true`, as in SQL.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(let int):
            return int != 0
        case .real(let double):
            return double != 0
        case .text, .blob:
            return Int64.fromDatabaseValue(value).map { $0 != 0 }
        case .null:
            return nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// `nil` is stored as NULL.
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.databaseValue
        }
    }

    /// NULL converts to `.some(nil)`; a value that `Wrapped` cannot represent converts to `nil`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if value.isNull {
            return .some(nil)
        }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}
