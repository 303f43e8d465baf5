/// Bounds on what a client accepts from a server, so a garbled or hostile length never becomes an allocation.
public struct DqliteLimits: Sendable, Hashable {
    /// The largest message body accepted, in bytes (a header announcing more is an error before any allocation).
    ///
    /// A ROWS part is about one memory page, but a DUMP response holds the whole database and its WAL in one
    /// message, so this bounds the size of a database that can be dumped.
    public var maxMessageBytes: Int
    /// The largest result set accepted across all ROWS parts of one query, in bytes of message bodies.
    public var maxResultBytes: Int

    public init(maxMessageBytes: Int = 256 << 20, maxResultBytes: Int = 64 << 20) {
        self.maxMessageBytes = maxMessageBytes
        self.maxResultBytes = maxResultBytes
    }
}
