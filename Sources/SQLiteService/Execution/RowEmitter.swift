import SQLiteEngine

/// Writes a statement's columns and rows into a result object, reading each
/// value straight from the statement: no intermediate row values.
///
/// Column names are encoded once per compiled statement, as JSON keys (``StatementProfile``).
struct RowEmitter {
    private let statement: Statement
    private let shape: RequestOptions.Shape
    private let int64AsString: Bool
    /// The statement's encoded header and object keys (the last column of each name only); read after the first
    /// step, since that step recompiles a statement whose schema changed, and its columns with it.
    private var profile: StatementProfile?
    /// Set when rows were cut at the row budget.
    var truncated = false
    /// The response size past which no further value is written (``ServiceLimits/maxResponseBytes``).
    private let maxResponseBytes: Int

    init(statement: Statement, context: RequestContext) {
        self.statement = statement
        self.shape = context.shape
        self.int64AsString = context.int64AsString
        self.maxResponseBytes = context.maxResponseBytes
    }

    /// Writes `"columns": [...], "types": [...], "rows": [` (only when the statement has columns), once: call it
    /// after the statement's first step, and before its first row.
    mutating func writeHeaderIfNeeded(into out: inout JSONWriter) {
        guard profile == nil else { return }
        let profile = StatementProfile.of(statement)
        self.profile = profile
        if profile.columnCount > 0 {
            out.appendOpeningMembers(profile.header)
        }
    }

    /// The statement's profile, read (once) without writing the header: for a streamed result, whose head its
    /// writer makes (``StreamedResultWriter``). Call it after the statement's first step.
    mutating func readProfile() -> StatementProfile {
        if let profile { return profile }
        let profile = StatementProfile.of(statement)
        self.profile = profile
        return profile
    }

    /// Closes the rows array and adds `truncated` when rows were cut (writing the header first if no step ran).
    mutating func writeFooter(into out: inout JSONWriter) {
        writeHeaderIfNeeded(into: &out)
        guard let profile, profile.columnCount > 0 else { return }
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
        writeHeaderIfNeeded(into: &out)
        guard let profile, profile.columnCount > 0 else { return }
        let columnCount = profile.columnCount
        switch shape {
        case .arrays:
            out.beginArray()
            for index in 0..<columnCount {
                try out.checkWithin(responseLimit: maxResponseBytes)
                writeValue(at: index, into: &out)
            }
            out.endArray()
        case .objects:
            // A repeated column name keeps the last value (the contract): write
            // only the last occurrence of each name so the object has no duplicate keys.
            out.beginObject()
            for index in 0..<columnCount {
                guard let key = profile.objectKeys[index] else { continue }
                try out.checkWithin(responseLimit: maxResponseBytes)
                out.appendEncodedKey(key)
                writeValue(at: index, into: &out)
            }
            out.endObject()
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
