/// Appends the protocol's primitive fields to a byte buffer: little-endian integers, IEEE 754 doubles, NUL-terminated
/// text and length-prefixed blobs, both padded with zeros to a word (8 bytes).
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Data types").
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    var count: Int {
        bytes.count
    }

    mutating func writeUInt8(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func writeUInt16(_ value: UInt16) {
        writeLittleEndian(value)
    }

    mutating func writeUInt32(_ value: UInt32) {
        writeLittleEndian(value)
    }

    mutating func writeUInt64(_ value: UInt64) {
        writeLittleEndian(value)
    }

    mutating func writeInt64(_ value: Int64) {
        writeLittleEndian(UInt64(bitPattern: value))
    }

    mutating func writeDouble(_ value: Double) {
        writeLittleEndian(value.bitPattern)
    }

    /// Writes UTF-8 text, a NUL, and zeros up to the next word boundary.
    ///
    /// - Throws: ``DqliteError`` `.invalidArgument` when the text contains NUL, which would cut it short.
    mutating func writeText(_ value: String, _ what: @autoclosure () -> String) throws(DqliteError) {
        let start = bytes.count
        bytes.append(contentsOf: value.utf8)
        if bytes[start...].contains(0) {
            bytes.removeSubrange(start...)
            throw .invalidArgument("\(what()) contains a NUL character, which the dqlite protocol cannot carry")
        }
        bytes.append(0)
        padToWord()
    }

    /// Writes the blob's length as a word, its bytes, and zeros up to the next word boundary.
    mutating func writeBlob(_ value: [UInt8]) {
        writeUInt64(UInt64(value.count))
        bytes.append(contentsOf: value)
        padToWord()
    }

    /// Appends zeros up to the next word boundary (nothing when already there).
    mutating func padToWord() {
        let remainder = bytes.count % 8
        if remainder != 0 {
            bytes.append(contentsOf: repeatElement(0, count: 8 - remainder))
        }
    }

    /// Overwrites the byte at `index` (a tuple header slot written after its values' types are known).
    mutating func setByte(_ value: UInt8, at index: Int) {
        bytes[index] = value
    }

    private mutating func writeLittleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
