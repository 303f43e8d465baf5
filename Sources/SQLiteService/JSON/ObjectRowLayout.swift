/// Which columns a row written as a JSON object includes.
///
/// A result may repeat a column name (`SELECT 1 AS a, 2 AS a`). JSON objects must not repeat a key (RFC 8259 §4
/// leaves the meaning undefined, and this server's own parser refuses them), and the API contract says the last
/// value wins; so only the last column of each name is written, at that column's position. `columns` still lists
/// every name, and the `arrays` shape is lossless.
public struct ObjectRowLayout: Sendable, Equatable {
    /// For each column, in order: whether its value is written into row objects.
    public let writesColumn: [Bool]

    /// Computes the layout for a statement's column names (compute once per statement, not per row).
    public init(columnNames: [String]) {
        if columnNames.count <= 16 {
            // Few columns (the usual case): comparing each pair costs less than hashing every name.
            let count = columnNames.count
            writesColumn = (0..<count).map { index in
                !columnNames[(index + 1)..<count].contains(columnNames[index])
            }
            return
        }
        var seen = Set<String>(minimumCapacity: columnNames.count)
        var writes = [Bool](repeating: false, count: columnNames.count)
        for index in columnNames.indices.reversed() where seen.insert(columnNames[index]).inserted {
            writes[index] = true
        }
        writesColumn = writes
    }

    /// Whether some column name repeats, so that row objects have fewer members than there are columns.
    public var dropsColumns: Bool {
        writesColumn.contains(false)
    }
}
