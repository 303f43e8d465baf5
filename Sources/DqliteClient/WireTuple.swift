/// Tuples of values: the parameters of EXEC, QUERY, EXEC_SQL and QUERY_SQL, and the rows of a ROWS response.
///
/// A parameter tuple (schema 0) starts with a byte holding the number of values (at most 255), then one byte per
/// value with its type code, zero-padded to a word boundary, then the values. A row tuple has no count (the
/// column count is known); its header holds one 4-bit type code per value, the first value in the low nibble,
/// zero-padded to a word boundary. Every value is a whole number of words: INTEGER, FLOAT, NULL (a zero word),
/// UNIXTIME and BOOLEAN one word, TEXT and ISO8601 NUL-terminated and padded, BLOB a length word then padded bytes.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Tuples").
enum WireTuple {
    /// The most values a schema-0 parameter tuple can count in its one-byte header.
    static let maxParameters = 255

    /// Appends `values` as a parameter tuple; no bytes at all when there are none (the server then binds nothing).
    ///
    /// - Throws: ``DqliteError`` `.invalidArgument` for more than 255 values, text containing NUL, or a
    ///   ``DqliteValue/unixTime(_:)`` value (the server does not bind that type). Never shows a value.
    static func writeParameters(_ values: [DqliteValue], to writer: inout WireWriter) throws(DqliteError) {
        guard !values.isEmpty else { return }
        guard values.count <= maxParameters else {
            throw .invalidArgument("\(values.count) parameters; the dqlite protocol carries at most \(maxParameters)")
        }
        writer.writeUInt8(UInt8(values.count))
        for (index, value) in values.enumerated() {
            if case .unixTime = value {
                throw .invalidArgument("parameter \(index + 1) is a UNIXTIME value, which dqlite does not bind")
            }
            writer.writeUInt8(value.type.rawValue)
        }
        writer.padToWord()
        for (index, value) in values.enumerated() {
            try writeValue(value, to: &writer, "parameter \(index + 1)")
        }
    }

    /// Reads a parameter tuple (as the server does; used by tests and fakes).
    static func readParameters(from reader: inout WireReader) throws(DqliteError) -> [DqliteValue] {
        guard !reader.isAtEnd else { return [] }
        let start = reader.offset
        let count = Int(try reader.readUInt8("the parameter count"))
        let headerEnd = start + WireReader.padded(1 + count)
        try reader.skip(headerEnd - reader.offset, "the parameter types")
        var values: [DqliteValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            let code = reader.byte(at: start + 1 + index)
            values.append(try readValue(code: code, from: &reader, "parameter \(index + 1)"))
        }
        return values
    }

    /// Appends `values` as a row tuple (as the server does; used by tests and fakes).
    static func writeRow(_ values: [DqliteValue], to writer: inout WireWriter) throws(DqliteError) {
        let header = writer.count
        for _ in 0..<WireReader.padded((values.count + 1) / 2) {
            writer.writeUInt8(0)
        }
        for (index, value) in values.enumerated() {
            let slot = header + index / 2
            let code = value.type.rawValue
            let shifted = index % 2 == 0 ? code : code << 4
            writer.setByte(writer.bytes[slot] | shifted, at: slot)
        }
        for (index, value) in values.enumerated() {
            try writeValue(value, to: &writer, "column \(index + 1)")
        }
    }

    /// Reads a row tuple of `columns` values.
    static func readRow(columns: Int, from reader: inout WireReader) throws(DqliteError) -> [DqliteValue] {
        let start = reader.offset
        try reader.skip(WireReader.padded((columns + 1) / 2), "a row header")
        var values: [DqliteValue] = []
        values.reserveCapacity(columns)
        for index in 0..<columns {
            let slot = reader.byte(at: start + index / 2)
            let code = index % 2 == 0 ? slot & 0x0f : slot >> 4
            values.append(try readValue(code: code, from: &reader, "column \(index + 1)"))
        }
        return values
    }

    private static func writeValue(
        _ value: DqliteValue,
        to writer: inout WireWriter,
        _ what: @autoclosure () -> String
    ) throws(DqliteError) {
        switch value {
        case .integer(let integer), .unixTime(let integer): writer.writeInt64(integer)
        case .float(let double): writer.writeDouble(double)
        case .text(let text), .iso8601(let text): try writer.writeText(text, what())
        case .blob(let blob): writer.writeBlob(blob)
        case .null: writer.writeUInt64(0)
        case .boolean(let flag): writer.writeUInt64(flag ? 1 : 0)
        }
    }

    private static func readValue(
        code: UInt8,
        from reader: inout WireReader,
        _ what: @autoclosure () -> String
    ) throws(DqliteError) -> DqliteValue {
        guard let type = DqliteValueType(rawValue: code) else {
            throw .violation("\(what()) has the unknown type code \(code)")
        }
        switch type {
        case .integer: return .integer(try reader.readInt64(what()))
        case .float: return .float(try reader.readDouble(what()))
        case .text: return .text(try reader.readText(what()))
        case .blob: return .blob(try reader.readBlob(what()))
        case .null:
            _ = try reader.readUInt64(what())
            return .null
        case .unixTime: return .unixTime(try reader.readInt64(what()))
        case .iso8601: return .iso8601(try reader.readText(what()))
        case .boolean: return .boolean(try reader.readUInt64(what()) != 0)
        }
    }
}
