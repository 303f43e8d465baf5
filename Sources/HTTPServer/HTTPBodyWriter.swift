/// Writes the pieces of a streamed response body.
///
/// Handed to a `HTTPResponse.Body.stream` closure, which runs on a handler thread. `write(_:)` blocks that thread
/// while the connection's unsent output is above its bound (backpressure), so a client that reads slowly, or not
/// at all, never makes the server buffer more than that bound.
public final class HTTPBodyWriter: Sendable {
    private let sink: @Sendable ([UInt8]) throws -> Void

    init(sink: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.sink = sink
    }

    /// Sends `bytes` as the next piece of the body (an empty array sends nothing).
    ///
    /// - Throws: `HTTPServerError` with code `.connectionClosed` when the client is gone or the server is stopping;
    ///   the stream closure should then return (or rethrow) promptly.
    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try sink(bytes)
    }

    /// Sends the UTF-8 bytes of `text`.
    public func write(_ text: String) throws {
        try write(Array(text.utf8))
    }
}
