/// One file of a DUMP response: the database file, or its WAL (named `<database>-wal`).
public struct DqliteFile: Sendable, Hashable {
    public var name: String
    public var bytes: [UInt8]

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}
