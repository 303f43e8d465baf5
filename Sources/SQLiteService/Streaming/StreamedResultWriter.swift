import DqliteClient
import SQLiteEngine

/// Writes a streamed result (`../shared/API.md`, "Streaming results: NDJSON and CSV") into a bounded buffer that is
/// handed to the client each time it fills, so that the memory a response holds does not grow with its rows.
///
/// NDJSON: a head line `{"columns":[…],"types":[…]}`, a line per row (an object or an array, as ``RowEmitter`` and
/// ``ClusterRowWriter`` write a row of the JSON result), a last line `{"rows":n}`, or `{"error":{…}}` when the
/// statement fails after the head. CSV (RFC 4180): a header record of the column names, a record per row, CRLF after
/// every record; NULL an empty unquoted field, empty text and an empty BLOB `""`, a REAL as in JSON, a BLOB in
/// base64.
///
/// The head is sent as soon as it is written (``begin(_:)``): from then on the response is committed (200), and an
/// error is reported in the stream (NDJSON) or cuts it (CSV). Before it, the error is the ordinary JSON answer.
struct StreamedResultWriter {
    /// How much is buffered before it is sent: a write per 32 KiB keeps the system calls few and the memory flat.
    static let flushThreshold = 32 * 1024

    let format: ResultFormat
    private var out = JSONWriter(capacity: Self.flushThreshold + 4 * 1024)
    /// Hands bytes to the client; blocks while the client's side is over its bound.
    private let send: ([UInt8]) throws -> Void
    /// Whether the head was sent (the response is committed).
    private(set) var started = false
    /// Rows written.
    private(set) var rowCount = 0
    /// Why sending failed (the client went away, stopped reading, or the server is stopping), once it did.
    private(set) var sendFailure: (any Error)?
    /// The largest buffer one row may fill (``ServiceLimits/maxResponseBytes``): a single row of huge values fails
    /// with `SQLITE_TOOBIG` rather than filling memory.
    private let maxRowBytes: Int
    private var columnCount = 0
    /// Scratch space for a REAL's text (CSV).
    private var scratch = JSONWriter(capacity: 32)

    init(format: ResultFormat, maxRowBytes: Int, send: @escaping ([UInt8]) throws -> Void) {
        precondition(format.isStreamed, "JSON results are not streamed")
        self.format = format
        self.maxRowBytes = maxRowBytes
        self.send = send
    }

    // MARK: Head

    /// Writes the head (NDJSON's first line, CSV's header record) from the statement's profile and sends it: call it
    /// after the statement's first step, which may still fail with an ordinary JSON error.
    mutating func begin(_ profile: StatementProfile) throws(APIError) {
        precondition(!started, "the head is written once")
        columnCount = profile.columnCount
        switch format {
        case .ndjson:
            out.beginObject()
            if profile.header.isEmpty {
                out.key("columns")
                out.beginArray()
                out.endArray()
                out.key("types")
                out.beginArray()
                out.endArray()
            } else {
                // The profile's header is `"columns":[…],"types":[…],"rows":[`: all but the rows' opening.
                out.appendOpeningMembers(Array(profile.header.dropLast(Self.rowsOpening.count)))
            }
            out.endObject()
            out.endLine()
        case .csv, .json:
            out.appendRaw { bytes in
                for (index, name) in profile.columnNames.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    var name = name
                    name.withUTF8 { Self.appendText($0, into: &bytes) }
                }
                bytes.append(contentsOf: Self.crlf)
            }
        }
        started = true
        try flush()
    }

    /// `,"rows":[`, the end of ``StatementProfile/header``.
    private static let rowsOpening = Array(#","rows":["#.utf8)
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    // MARK: Rows

    /// Writes the statement's current row (a local reader's).
    mutating func writeRow(_ statement: Statement, emitter: inout RowEmitter) throws(APIError) {
        switch format {
        case .ndjson:
            try emitter.writeRow(into: &out)
            out.endLine()
        case .csv, .json:
            for index in 0..<columnCount {
                try checkRowSize()
                switch statement.columnType(at: index) {
                case .null:
                    appendField(nil, first: index == 0)
                case .integer:
                    appendField(integer: statement.int64(at: index), first: index == 0)
                case .real:
                    appendField(real: statement.double(at: index), first: index == 0)
                case .text:
                    statement.withUnsafeTextBytes(at: index) { text in
                        out.appendRaw { bytes in
                            if index > 0 { bytes.append(UInt8(ascii: ",")) }
                            Self.appendText(text.bindMemory(to: UInt8.self), into: &bytes)
                        }
                    }
                case .blob:
                    statement.withUnsafeBlobBytes(at: index) { blob in appendField(blob: blob, first: index == 0) }
                }
            }
            out.appendRaw { $0.append(contentsOf: Self.crlf) }
        }
        try rowWritten()
    }

    /// Writes one row the cluster's leader returned, with the statement's profile (``ClusterRowWriter``).
    mutating func writeRow(_ row: [DqliteValue], writer: ClusterRowWriter) throws(APIError) {
        switch format {
        case .ndjson:
            try writer.writeRow(row, into: &out)
            out.endLine()
        case .csv, .json:
            for index in 0..<min(row.count, columnCount) {
                try checkRowSize()
                let first = index == 0
                switch row[index] {
                case .null:
                    appendField(nil, first: first)
                case .integer(let value), .unixTime(let value):
                    appendField(integer: value, first: first)
                case .boolean(let value):
                    appendField(integer: value ? 1 : 0, first: first)
                case .float(let value):
                    appendField(real: value, first: first)
                case .text(var value), .iso8601(var value):
                    value.withUTF8 { text in
                        out.appendRaw { bytes in
                            if !first { bytes.append(UInt8(ascii: ",")) }
                            Self.appendText(text, into: &bytes)
                        }
                    }
                case .blob(let value):
                    value.withUnsafeBytes { appendField(blob: $0, first: first) }
                }
            }
            out.appendRaw { $0.append(contentsOf: Self.crlf) }
        }
        try rowWritten()
    }

    private mutating func rowWritten() throws(APIError) {
        rowCount += 1
        if out.bytes.count >= Self.flushThreshold { try flush() }
    }

    private func checkRowSize() throws(APIError) {
        try out.checkWithin(responseLimit: maxRowBytes)
    }

    // MARK: End

    /// Ends a complete result: NDJSON's `{"rows":n}` line; everything buffered is sent.
    mutating func finish() throws(APIError) {
        if format == .ndjson {
            out.beginObject()
            out.key("rows")
            out.writeInt64(Int64(rowCount))
            out.endObject()
            out.endLine()
        }
        try flush()
    }

    /// Ends an NDJSON result that failed after its head with the line `{"error":{…}}`, sent with what is buffered.
    mutating func finish(failingWith error: APIError) throws(APIError) {
        precondition(format == .ndjson, "only NDJSON reports an error in the stream")
        error.writeBody(to: &out)
        out.endLine()
        try flush()
    }

    /// Sends what is buffered.
    ///
    /// - Throws: 500 `INTERNAL` when the client cannot take it (``sendFailure`` says why): the statement stops.
    mutating func flush() throws(APIError) {
        guard !out.bytes.isEmpty else { return }
        let bytes = out.takeBytes()
        do {
            try send(bytes)
        } catch {
            sendFailure = error
            throw .internal("the streamed response could not be sent")
        }
    }

    // MARK: CSV fields

    /// Appends `,` (except before a record's first field) and nothing else: NULL is an empty unquoted field.
    private mutating func appendField(_ null: Void?, first: Bool) {
        if !first { out.appendRaw { $0.append(UInt8(ascii: ",")) } }
    }

    private mutating func appendField(integer value: Int64, first: Bool) {
        out.appendRaw { bytes in
            if !first { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.withDecimalDigits(value.magnitude) { digits in
                if value < 0 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(contentsOf: digits)
            }
        }
    }

    /// A REAL as JSON writes it (shortest round-trip text with a fraction or exponent); ±∞ as `Infinity` and
    /// `-Infinity`, unquoted; NaN (which SQLite never stores) as NULL.
    private mutating func appendField(real value: Double, first: Bool) {
        if value.isNaN {
            appendField(nil, first: first)
            return
        }
        scratch.removeAll()
        if value.isInfinite {
            scratch.appendRaw { $0.append(contentsOf: (value < 0 ? "-Infinity" : "Infinity").utf8) }
        } else {
            scratch.writeDouble(value)
        }
        let text = scratch.bytes
        out.appendRaw { bytes in
            if !first { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: text)
        }
    }

    /// A BLOB in base64 (RFC 4648 §4, padded: never a character that needs quoting); an empty one is `""`.
    private mutating func appendField(blob: UnsafeRawBufferPointer, first: Bool) {
        out.appendRaw { bytes in
            if !first { bytes.append(UInt8(ascii: ",")) }
            if blob.isEmpty {
                bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")])
            } else {
                Base64.encode(blob, into: &bytes)
            }
        }
    }

    /// A text field: as is, or quoted (quotes doubled) when it holds `,` `"` CR or LF, or is empty (so that empty
    /// text is told from NULL). Ill-formed UTF-8 is repaired (U+FFFD) as JSON repairs it.
    static func appendText(_ text: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        var needsQuotes = text.isEmpty
        var isASCII = true
        for byte in text {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "\""), 0x0D, 0x0A: needsQuotes = true
            case 0x80...: isASCII = false
            default: break
            }
        }
        guard isASCII else {
            // String(decoding:) replaces each ill-formed sequence (its maximal subpart) with U+FFFD.
            var repaired = String(decoding: text, as: UTF8.self)
            repaired.withUTF8 { appendChecked($0, quoted: needsQuotes, into: &bytes) }
            return
        }
        appendChecked(text, quoted: needsQuotes, into: &bytes)
    }

    private static func appendChecked(_ text: UnsafeBufferPointer<UInt8>, quoted: Bool, into bytes: inout [UInt8]) {
        guard quoted else {
            bytes.append(contentsOf: text)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in text {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
