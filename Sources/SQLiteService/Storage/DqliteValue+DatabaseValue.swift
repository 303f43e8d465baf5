import DqliteClient
import Foundation
import SQLiteEngine

extension DatabaseValue {
    /// The value as the wire protocol carries it.
    var dqliteValue: DqliteValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .float(value)
        case .text(let value): .text(value)
        case .blob(let data): .blob(Array(data))
        }
    }
}

extension DqliteValue {
    /// The value as SQLite stores it (dqlite's time and boolean types are its integers and text).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value), .unixTime(let value): .integer(value)
        case .float(let value): .real(value)
        case .text(let value), .iso8601(let value): .text(value)
        case .blob(let bytes): .blob(Data(bytes))
        case .boolean(let value): .integer(value ? 1 : 0)
        }
    }
}
