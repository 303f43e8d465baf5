/// The one-word header in front of every message.
///
/// Layout: bytes 0–3 the body size in words (little endian), byte 4 the message type, byte 5 the schema version of
/// the body, bytes 6–7 unused (zero).
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Definitions").
public struct DqliteMessageHeader: Sendable, Hashable {
    /// The size of a header, and of a word.
    public static let size = 8

    public var words: UInt32
    public var type: UInt8
    public var schema: UInt8
    public var extra: UInt16

    public init(words: UInt32, type: UInt8, schema: UInt8 = 0, extra: UInt16 = 0) {
        self.words = words
        self.type = type
        self.schema = schema
        self.extra = extra
    }

    /// The body size in bytes.
    public var bodyBytes: Int {
        Int(words) * 8
    }

    /// Decodes the first eight bytes of `bytes`.
    ///
    /// - Throws: ``DqliteError`` `.protocolViolation` when fewer than eight bytes are given.
    public init(decoding bytes: some Collection<UInt8>) throws(DqliteError) {
        var reader = WireReader(Array(bytes.prefix(Self.size)))
        words = try reader.readUInt32("the header")
        type = try reader.readUInt8("the header")
        schema = try reader.readUInt8("the header")
        extra = try reader.readUInt16("the header")
    }

    /// The header's eight bytes.
    public var encoded: [UInt8] {
        var writer = WireWriter()
        writer.writeUInt32(words)
        writer.writeUInt8(type)
        writer.writeUInt8(schema)
        writer.writeUInt16(extra)
        return writer.bytes
    }
}
