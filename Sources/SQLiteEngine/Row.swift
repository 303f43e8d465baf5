public import Foundation

/// One result row, copied out of the statement: it stays valid after the cursor moves on, and is `Sendable`.
///
/// Getters take a column index or a column name; names are matched case-insensitively (ASCII), and when several
/// columns share a name the leftmost wins. A getter returns `nil` for NULL, for an unknown column, and for a value
/// its type cannot represent (see ``DatabaseValueConvertible``).
public struct Row: Sendable, Hashable {
    let layout: RowLayout
    /// The values, in column order.
    public let values: [DatabaseValue]

    init(layout: RowLayout, values: [DatabaseValue]) {
        self.layout = layout
        self.values = values
    }

    init(statement: Statement, layout: RowLayout) {
        let count = layout.columnNames.count
        var values: [DatabaseValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            values.append(statement.value(at: index))
        }
        self.init(layout: layout, values: values)
    }

    /// The column names, in order.
    public var columnNames: [String] {
        layout.columnNames
    }

    /// The declared type of each column, or `nil` for an expression.
    public var declaredTypes: [String?] {
        layout.declaredTypes
    }

    /// The number of columns.
    public var count: Int {
        values.count
    }

    /// The index of the leftmost column named `name` (case-insensitive), or `nil`.
    public func index(ofColumn name: String) -> Int? {
        layout.index(ofColumn: name)
    }

    /// The value at `index`; traps when out of range, like an array.
    public subscript(index: Int) -> DatabaseValue {
        values[index]
    }

    /// The value of the column named `name`, or `nil` when there is no such column.
    public subscript(name: String) -> DatabaseValue? {
        layout.index(ofColumn: name).map { values[$0] }
    }

    /// The value at `index` converted to `T`, or `nil` (NULL, out of range, or not representable).
    public func get<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) -> T? {
        guard values.indices.contains(index) else { return nil }
        return T.fromDatabaseValue(values[index])
    }

    /// The value of column `name` converted to `T`, or `nil` (NULL, no such column, or not representable).
    public func get<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) -> T? {
        layout.index(ofColumn: name).flatMap { T.fromDatabaseValue(values[$0]) }
    }

    /// The value at `index`, `.null` when out of range.
    public func value(at index: Int) -> DatabaseValue {
        values.indices.contains(index) ? values[index] : .null
    }

    /// The value of column `name`, `.null` when there is no such column.
    public func value(named name: String) -> DatabaseValue {
        self[name] ?? .null
    }

    public func isNull(at index: Int) -> Bool { value(at: index).isNull }
    public func isNull(named name: String) -> Bool { value(named: name).isNull }

    public func int64(at index: Int) -> Int64? { get(at: index) }
    public func int(at index: Int) -> Int? { get(at: index) }
    public func double(at index: Int) -> Double? { get(at: index) }
    public func string(at index: Int) -> String? { get(at: index) }
    public func data(at index: Int) -> Data? { get(at: index) }
    public func bool(at index: Int) -> Bool? { get(at: index) }
    public func date(at index: Int) -> Date? { get(at: index) }

    public func int64(named name: String) -> Int64? { get(named: name) }
    public func int(named name: String) -> Int? { get(named: name) }
    public func double(named name: String) -> Double? { get(named: name) }
    public func string(named name: String) -> String? { get(named: name) }
    public func data(named name: String) -> Data? { get(named: name) }
    public func bool(named name: String) -> Bool? { get(named: name) }
    public func date(named name: String) -> Date? { get(named: name) }

    /// The row as a dictionary keyed by column name; when names repeat, the rightmost column wins (as a JSON
    /// object built column by column would).
    public var dictionary: [String: DatabaseValue] {
        var result: [String: DatabaseValue] = [:]
        for (name, value) in zip(layout.columnNames, values) {
            result[name] = value
        }
        return result
    }

    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.layout.columnNames == rhs.layout.columnNames && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout.columnNames)
        hasher.combine(values)
    }
}

/// Column names and declared types shared by every row of one cursor.
final class RowLayout: Sendable {
    let columnNames: [String]
    let declaredTypes: [String?]
    /// Name lookups by exact comparison first, without hashing (see `ColumnNameTable`).
    private let nameTable: ColumnNameTable

    init(columnNames: [String], declaredTypes: [String?]) {
        self.columnNames = columnNames
        self.declaredTypes = declaredTypes
        self.nameTable = ColumnNameTable(names: columnNames)
    }

    convenience init(statement: Statement) {
        self.init(columnNames: statement.columnNames, declaredTypes: statement.declaredTypes)
    }

    func index(ofColumn name: String) -> Int? {
        nameTable.index(of: name)
    }
}
