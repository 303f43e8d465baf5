/// Reads the protocol's primitive fields from a message body, strictly: every read is checked against the bytes
/// left, so a truncated or garbled body is a ``DqliteError`` `.protocolViolation`, never a crash, and a length
/// field is checked before anything is allocated for it.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Data types").
struct WireReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A reader of `bytes` from `offset` on (the array is shared, not copied).
    init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

    /// The bytes not read yet.
    var remaining: Int {
        bytes.count - offset
    }

    var isAtEnd: Bool {
        offset == bytes.count
    }

    /// The next byte, not consumed.
    func peekUInt8() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    mutating func readUInt8(_ what: @autoclosure () -> String) throws(DqliteError) -> UInt8 {
        try readLittleEndian(UInt8.self, what())
    }

    mutating func readUInt16(_ what: @autoclosure () -> String) throws(DqliteError) -> UInt16 {
        try readLittleEndian(UInt16.self, what())
    }

    mutating func readUInt32(_ what: @autoclosure () -> String) throws(DqliteError) -> UInt32 {
        try readLittleEndian(UInt32.self, what())
    }

    mutating func readUInt64(_ what: @autoclosure () -> String) throws(DqliteError) -> UInt64 {
        try readLittleEndian(UInt64.self, what())
    }

    mutating func readInt64(_ what: @autoclosure () -> String) throws(DqliteError) -> Int64 {
        Int64(bitPattern: try readLittleEndian(UInt64.self, what()))
    }

    mutating func readDouble(_ what: @autoclosure () -> String) throws(DqliteError) -> Double {
        Double(bitPattern: try readLittleEndian(UInt64.self, what()))
    }

    /// Reads NUL-terminated text and its padding to the next word boundary.
    ///
    /// Invalid UTF-8 (which SQLite lets TEXT hold) is repaired with U+FFFD, as `sqlite3_column_text` users do.
    mutating func readText(_ what: @autoclosure () -> String) throws(DqliteError) -> String {
        guard let end = bytes[offset...].firstIndex(of: 0) else {
            throw .truncated("\(what()) (no NUL terminator)")
        }
        let padded = Self.padded(end - offset + 1)
        guard padded <= remaining else { throw .truncated("the padding of \(what())") }
        let text = String(decoding: bytes[offset..<end], as: UTF8.self)
        offset += padded
        return text
    }

    /// Reads a word-sized length, that many bytes, and their padding to the next word boundary.
    mutating func readBlob(_ what: @autoclosure () -> String) throws(DqliteError) -> [UInt8] {
        let length = try readUInt64("the length of \(what())")
        // Checked before the allocation: the bytes must be in the message already.
        guard length <= UInt64(remaining), Self.padded(Int(length)) <= remaining else {
            throw .truncated("\(what()) (\(length) bytes announced, \(remaining) left)")
        }
        let count = Int(length)
        let blob = Array(bytes[offset..<offset + count])
        offset += Self.padded(count)
        return blob
    }

    /// Skips `count` bytes (tuple header padding).
    mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws(DqliteError) {
        guard count <= remaining else { throw .truncated(what()) }
        offset += count
    }

    /// The byte at `index` from the start of the body (a tuple header slot already skipped).
    func byte(at index: Int) -> UInt8 {
        bytes[index]
    }

    /// `count` rounded up to a multiple of 8.
    static func padded(_ count: Int) -> Int {
        (count + 7) & ~7
    }

    private mutating func readLittleEndian<T: FixedWidthInteger>(
        _: T.Type,
        _ what: @autoclosure () -> String
    ) throws(DqliteError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw .truncated(what()) }
        var value = T.zero
        for index in 0..<size {
            value |= T(bytes[offset + index]) << (8 * index)
        }
        offset += size
        return value
    }
}
