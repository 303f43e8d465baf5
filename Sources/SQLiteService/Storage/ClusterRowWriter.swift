import DqliteClient

/// Writes the rows the leader returned into a result object, as ``RowEmitter`` writes a local statement's: the
/// `columns`/`types` header of the statement prepared on the copy of the schema, rows as objects or arrays, the
/// row budget (`truncated`), the response size limit.
///
/// Values keep their storage class: INTEGER as an exact integer, REAL as a number with a fraction or exponent,
/// TEXT as a string, BLOB as `{"base64": …}`. dqlite's own types (sent for columns declared as times or
/// booleans, which the cluster backend does not let a table have: see ``DeclaredTypeGuard``) are written as the
/// INTEGER or TEXT they hold.
struct ClusterRowWriter {
    private let profile: StatementProfile
    private let shape: RequestOptions.Shape
    private let int64AsString: Bool
    private let maxResponseBytes: Int
    private(set) var remainingRows: Int
    private var truncated = false
    private var wroteHeader = false

    init(profile: StatementProfile, context: RequestContext) {
        self.profile = profile
        self.shape = context.shape
        self.int64AsString = context.int64AsString
        self.maxResponseBytes = context.maxResponseBytes
        self.remainingRows = context.remainingRows
    }

    /// Appends the rows of one run (writing the header first, once).
    mutating func write(_ rows: DqliteRows, into out: inout JSONWriter, readOnly: Bool = true) throws(APIError) {
        writeHeaderIfNeeded(into: &out)
        guard profile.columnCount > 0 else { return }
        for row in rows.rows {
            guard remainingRows > 0 else {
                truncated = true
                if readOnly { break }
                continue
            }
            try writeRow(row, into: &out)
            remainingRows -= 1
        }
    }

    /// Closes the rows array and adds `truncated` when rows were cut (writing the header first if no run did).
    mutating func writeFooter(into out: inout JSONWriter) {
        writeHeaderIfNeeded(into: &out)
        guard profile.columnCount > 0 else { return }
        out.endArray()
        if truncated {
            out.key("truncated")
            out.writeBool(true)
        }
    }

    private mutating func writeHeaderIfNeeded(into out: inout JSONWriter) {
        guard !wroteHeader else { return }
        wroteHeader = true
        if profile.columnCount > 0 {
            out.appendOpeningMembers(profile.header)
        }
    }

    /// Writes one row (object or array as the request's shape says); also a streamed result's NDJSON line.
    func writeRow(_ row: [DqliteValue], into out: inout JSONWriter) throws(APIError) {
        let count = min(row.count, profile.columnCount)
        switch shape {
        case .arrays:
            out.beginArray()
            for index in 0..<count {
                try out.checkWithin(responseLimit: maxResponseBytes)
                writeValue(row[index], into: &out)
            }
            out.endArray()
        case .objects:
            out.beginObject()
            for index in 0..<count {
                guard let key = profile.objectKeys[index] else { continue }
                try out.checkWithin(responseLimit: maxResponseBytes)
                out.appendEncodedKey(key)
                writeValue(row[index], into: &out)
            }
            out.endObject()
        }
    }

    private func writeValue(_ value: DqliteValue, into out: inout JSONWriter) {
        switch value {
        case .null: out.writeNull()
        case .integer(let value), .unixTime(let value): out.writeInt64(value, asStringIfUnsafe: int64AsString)
        case .float(let value): out.writeDouble(value)
        case .text(let value), .iso8601(let value): out.writeString(value)
        case .blob(let bytes): out.writeBase64(bytes)
        case .boolean(let value): out.writeInt64(value ? 1 : 0, asStringIfUnsafe: false)
        }
    }
}
