import SQLiteEngine

/// Writes a statement's columns and rows into a result object, reading each
/// value straight from the statement: no intermediate row values.
///
/// Column names are encoded once, as JSON keys, when the emitter is made.
struct RowEmitter {
    private let statement: Statement
    private let shape: RequestOptions.Shape
    private let int64AsString: Bool
    private let columnCount: Int
    private let columnNames: [String]
    /// Which columns an object row carries: the last of each name.
    private let layout: ObjectRowLayout
    /// Set when rows were cut at the row budget.
    var truncated = false
    /// The response size past which no further value is written (``ServiceLimits/maxResponseBytes``).
    private let maxResponseBytes: Int

    init(statement: Statement, context: RequestContext) {
        self.statement = statement
        self.shape = context.shape
        self.int64AsString = context.int64AsString
        self.columnCount = statement.columnCount
        let names = statement.columnNames
        self.columnNames = names
        self.layout = ObjectRowLayout(columnNames: names)
        self.maxResponseBytes = context.maxResponseBytes
    }

    /// `"columns": [...], "types": [...], "rows": [` — only when the statement has columns.
    func writeHeader(into out: inout JSONWriter) {
        guard columnCount > 0 else { return }
        out.key("columns")
        out.beginArray()
        for name in columnNames { out.writeString(name) }
        out.endArray()
        out.key("types")
        out.beginArray()
        for type in statement.declaredTypes {
            if let type { out.writeString(type) } else { out.writeNull() }
        }
        out.endArray()
        out.key("rows")
        out.beginArray()
    }

    /// Closes the rows array and adds `truncated` when rows were cut.
    func writeFooter(into out: inout JSONWriter) {
        guard columnCount > 0 else { return }
        out.endArray()
        if truncated {
            out.key("truncated")
            out.writeBool(true)
        }
    }

    /// Writes the statement's current row.
    ///
    /// - Throws: 400 `SQLITE_TOOBIG` once the response exceeds its byte limit. Checked before each value, since
    ///   one row may hold up to 2,000 values of 10 MiB each: a limit on rows alone does not bound memory.
    mutating func writeRow(into out: inout JSONWriter) throws(APIError) {
        guard columnCount > 0 else { return }
        switch shape {
        case .arrays:
            out.beginArray()
            for index in 0..<columnCount {
                try checkSize(out)
                writeValue(at: index, into: &out)
            }
            out.endArray()
        case .objects:
            // A repeated column name keeps the last value (the contract): write
            // only the last occurrence of each name so the object has no duplicate keys.
            out.beginObject()
            for index in 0..<columnCount where layout.writesColumn[index] {
                try checkSize(out)
                out.key(columnNames[index])
                writeValue(at: index, into: &out)
            }
            out.endObject()
        }
    }

    private func checkSize(_ out: JSONWriter) throws(APIError) {
        if out.bytes.count > maxResponseBytes {
            throw .sqlite(
                name: "SQLITE_TOOBIG",
                code: 18,
                message: "the result exceeds the response size limit of \(maxResponseBytes) bytes "
                    + "(select fewer rows or columns)"
            )
        }
    }

    private func writeValue(at index: Int, into out: inout JSONWriter) {
        switch statement.columnType(at: index) {
        case .null:
            out.writeNull()
        case .integer:
            out.writeInt64(statement.int64(at: index), asStringIfUnsafe: int64AsString)
        case .real:
            out.writeDouble(statement.double(at: index))
        case .text:
            statement.withUnsafeTextBytes(at: index) { out.writeString(utf8: $0) }
        case .blob:
            statement.withUnsafeBlobBytes(at: index) { out.writeBase64($0) }
        }
    }
}
