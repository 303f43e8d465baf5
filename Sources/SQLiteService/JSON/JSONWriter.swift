/// Writes a JSON document (RFC 8259) into a byte buffer, for response bodies.
///
/// Values are appended in document order, so rows are written straight from a statement with no intermediate
/// tree. Commas are inserted automatically: call ``beginObject()``, then ``key(_:)`` and a `write…` method for
/// each member, then ``endObject()``; arrays likewise without keys. The writer does not check that calls are well
/// nested; the caller owns the structure.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.key("id")
/// writer.writeInt64(7)
/// writer.endObject()  // {"id":7}
/// ```
public struct JSONWriter: Sendable {
    /// The largest integer a JavaScript client reads exactly: 2^53 − 1 (`Number.MAX_SAFE_INTEGER`).
    public static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    /// The document written so far.
    public private(set) var bytes: [UInt8]
    /// Whether the next value or key follows a sibling and needs a comma first.
    private var needsComma = false

    /// Creates an empty writer.
    ///
    /// - Parameter capacity: bytes to reserve up front; a good guess avoids regrowing the buffer.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Hands over the document written so far and leaves the writer empty.
    public mutating func takeBytes() -> [UInt8] {
        defer {
            bytes = []
            needsComma = false
        }
        return bytes
    }

    /// Empties the writer, keeping its buffer.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// Ends a line of NDJSON: `\n`, after which the next value starts a new document (no comma before it).
    public mutating func endLine() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Appends bytes that are not JSON (a CSV record's) through `body`; the next value needs no comma.
    public mutating func appendRaw(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
        needsComma = false
    }

    @inline(__always)
    private mutating func beginValue() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// Starts an object: `{`.
    public mutating func beginObject() {
        beginValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends the current object: `}`.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array: `[`.
    public mutating func beginArray() {
        beginValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array: `]`.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member's key and the `:` after it; the next `write…` call gives its value.
    public mutating func key(_ name: String) {
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a member's key given as UTF-8 bytes (a column name from SQLite, say), repairing invalid UTF-8 as
    /// ``writeString(utf8:)`` does.
    public mutating func key(utf8 name: UnsafeRawBufferPointer) {
        writeString(utf8: name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Appends a key another writer encoded with ``key(_:)`` (`"name":`); the next `write…` call gives its value.
    public mutating func appendEncodedKey(_ encoded: [UInt8]) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: encoded)
        needsComma = false
    }

    /// Appends object members another writer encoded, starting from an empty writer, whose last member's value is
    /// a container left open (`"a":1,"rows":[`): this writer then continues inside that container.
    public mutating func appendOpeningMembers(_ encoded: [UInt8]) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: encoded)
        needsComma = false
    }

    /// Writes `null`.
    public mutating func writeNull() {
        beginValue()
        append("null")
    }

    /// Writes `true` or `false`.
    public mutating func writeBool(_ value: Bool) {
        beginValue()
        append(value ? "true" : "false")
    }

    /// Writes an integer, exactly.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - asStringIfUnsafe: when `true` (the request's `int64_as_string` option) and |value| > 2^53 − 1, the
    ///     integer is written as a decimal string, which JavaScript's `JSON.parse` cannot round to a neighbour.
    public mutating func writeInt64(_ value: Int64, asStringIfUnsafe: Bool = false) {
        beginValue()
        let quoted = asStringIfUnsafe && (value > Self.maxSafeInteger || value < -Self.maxSafeInteger)
        if quoted { bytes.append(UInt8(ascii: "\"")) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        Self.withDecimalDigits(value.magnitude) { bytes.append(contentsOf: $0) }
        if quoted { bytes.append(UInt8(ascii: "\"")) }
    }

    /// Calls `body` with the decimal digits of `value`, formed in a stack buffer (also used by the daemon's request
    /// log line).
    @inlinable
    public static func withDecimalDigits<R>(_ value: UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // Digits are formed right to left (20 fit any UInt64) and handed over in one piece.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value
            var first = 20
            repeat {
                first -= 1
                digits[first] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude != 0
            return body(UnsafeBufferPointer(rebasing: digits[first..<20]))
        }
    }

    /// Writes a floating-point number as the shortest text that reads back as the same double.
    ///
    /// The text always has a fraction or an exponent (`1.0`, `-0.0`, `1e+16`, `5e-324`), so a client never mistakes
    /// a REAL for an INTEGER. JSON has no literal for infinities: +∞ and −∞ are written as the strings `"Infinity"`
    /// and `"-Infinity"` (the API contract's choice). NaN, which SQLite never stores, is written as `null` so that the
    /// writer is total.
    public mutating func writeDouble(_ value: Double) {
        if value.isNaN {
            writeNull()
            return
        }
        if value.isInfinite {
            writeString(value < 0 ? "-Infinity" : "Infinity")
            return
        }
        beginValue()
        // Swift's text for a Double (its `description`) is the shortest round-trip form (SwiftDtoa), and is never
        // locale-dependent. Written through `write(to:)` into the output itself rather than as a String: no
        // allocation per value.
        let start = bytes.count
        var output = ByteOutputStream(bytes: [])
        swap(&output.bytes, &bytes)
        value.write(to: &output)
        swap(&output.bytes, &bytes)
        let isIntegral = !bytes[start...].contains {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
        }
        if isIntegral { append(".0") }
    }

    /// Writes a string, escaping `"`, `\` and control characters.
    public mutating func writeString(_ value: String) {
        beginValue()
        var value = value
        value.withUTF8 { appendEscaped($0, validating: false) }
    }

    /// Writes a string given as UTF-8 bytes (TEXT from SQLite, which need not be valid UTF-8).
    ///
    /// Each ill-formed sequence (its maximal subpart, Unicode §3.9) is replaced with U+FFFD rather than producing
    /// a document that is not valid JSON; valid text, embedded NUL included (as `\u0000`), is preserved.
    public mutating func writeString(utf8 value: UnsafeRawBufferPointer) {
        beginValue()
        appendEscaped(value.bindMemory(to: UInt8.self), validating: true)
    }

    /// Writes a blob as `{"base64":"..."}` (standard alphabet, padded: RFC 4648 §4).
    public mutating func writeBase64(_ value: UnsafeRawBufferPointer) {
        beginValue()
        bytes.reserveCapacity(bytes.count + Base64.encodedLength(of: value.count) + 14)
        append("{\"base64\":\"")
        Base64.encode(value, into: &bytes)
        append("\"}")
    }

    /// Writes a blob as `{"base64":"..."}` (standard alphabet, padded: RFC 4648 §4).
    public mutating func writeBase64(_ value: [UInt8]) {
        value.withUnsafeBytes { writeBase64($0) }
    }

    /// Writes an already-encoded JSON value verbatim (with a comma before it when needed).
    ///
    /// The caller guarantees that `json` is one complete, valid JSON value.
    public mutating func writeRaw(_ json: some Sequence<UInt8>) {
        beginValue()
        bytes.append(contentsOf: json)
    }

    /// Writes a parsed value (objects keep their member order).
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let bool): writeBool(bool)
        case .integer(let integer): writeInt64(integer)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            beginArray()
            for element in elements { write(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                write(member.value)
            }
            endObject()
        }
    }

    @inline(__always)
    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

extension JSONWriter {
    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Appends `"…"` with the content escaped per RFC 8259 §7, copying unescaped runs in bulk.
    private mutating func appendEscaped(_ input: UnsafeBufferPointer<UInt8>, validating: Bool) {
        bytes.reserveCapacity(bytes.count + input.count + 2)
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = input.count
        while index < count {
            let byte = input[index]
            if byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if byte >= 0x80 {
                guard validating else {
                    index += 1
                    continue
                }
                let (valid, length) = UTF8Validation.scalarLength(in: input, at: index)
                if valid {
                    index += length
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<index]))
                append("\u{FFFD}")
                index += length
                runStart = index
                continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                append("\\u00")
                bytes.append(Self.hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(Self.hexDigits.utf8Start[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<count]))
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A text output stream onto a byte array, for the standard library's number formatting.
///
/// `_writeASCII(_:)` is the standard library's own hook for the ASCII text of numbers (`Double.write(to:)` hands
/// over its digits through it); taking them here appends the bytes without making a String first. Any other text
/// comes through `write(_:)`.
struct ByteOutputStream: TextOutputStream {
    var bytes: [UInt8]

    mutating func write(_ string: String) {
        bytes.append(contentsOf: string.utf8)
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }
}
