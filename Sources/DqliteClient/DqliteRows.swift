/// The rows of a query: one ROWS response, or all the parts of a result set put together.
///
/// A ROWS body holds the column count (a word), the column names (text), the rows (tuples), then a marker word:
/// `0xeeeeeeeeeeeeeeee` when more ROWS responses follow for the same query, `0xffffffffffffffff` after the last.
/// The server ends a part once it holds about a page (4096 bytes) of rows, and repeats the column names in each.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Rows").
public struct DqliteRows: Sendable, Hashable {
    public var columns: [String]
    public var rows: [[DqliteValue]]
    /// Whether the server sends more parts after this one (the part-end marker); always `false` for a whole result.
    public var hasMore: Bool

    public init(columns: [String], rows: [[DqliteValue]], hasMore: Bool = false) {
        self.columns = columns
        self.rows = rows
        self.hasMore = hasMore
    }

    /// The marker word after the last row of a part that has a sequel (`DQLITE_RESPONSE_ROWS_PART`).
    static let partMarker: UInt64 = 0xeeee_eeee_eeee_eeee
    /// The marker word after the last row of the result set (`DQLITE_RESPONSE_ROWS_DONE`).
    static let doneMarker: UInt64 = 0xffff_ffff_ffff_ffff

    static func decode(from reader: inout WireReader) throws(DqliteError) -> DqliteRows {
        let count = try reader.readUInt64("the column count")
        // Every name takes at least a word: a larger count cannot be true, and is not allocated.
        guard count <= UInt64(reader.remaining / 8) else {
            throw .truncated("the column names (\(count) announced)")
        }
        var columns: [String] = []
        columns.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            columns.append(try reader.readText("the name of column \(index + 1)"))
        }
        var rows: [[DqliteValue]] = []
        while true {
            guard let first = reader.peekUInt8() else {
                throw .truncated("the rows (no end marker)")
            }
            // A row header never starts with 0xee or 0xff: type codes 14 and 15 do not exist.
            if first == 0xee || first == 0xff || columns.isEmpty {
                let marker = try reader.readUInt64("the rows end marker")
                guard marker == partMarker || marker == doneMarker else {
                    throw .violation("invalid rows end marker \(String(marker, radix: 16))")
                }
                return DqliteRows(columns: columns, rows: rows, hasMore: marker == partMarker)
            }
            rows.append(try WireTuple.readRow(columns: columns.count, from: &reader))
        }
    }

    func encode(to writer: inout WireWriter) throws(DqliteError) {
        writer.writeUInt64(UInt64(columns.count))
        for (index, name) in columns.enumerated() {
            try writer.writeText(name, "the name of column \(index + 1)")
        }
        for row in rows {
            guard row.count == columns.count else {
                throw .invalidArgument("a row has \(row.count) values for \(columns.count) columns")
            }
            try WireTuple.writeRow(row, to: &writer)
        }
        writer.writeUInt64(hasMore ? Self.partMarker : Self.doneMarker)
    }
}
