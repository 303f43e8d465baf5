/// Writes the pieces of a streamed response body.
///
/// Handed to a `HTTPResponse.Body.stream` closure, which runs on a handler thread. `write(_:)` blocks that thread
/// while the response's unsent output is above its bound (backpressure: the connection's output on HTTP/1.1, the
/// stream's buffer under the client's flow control on HTTP/2), so a client that reads slowly, or not at all, never
/// makes the server buffer more than that bound. The response's head leaves with the first piece: until then the
/// producer may still answer otherwise by throwing ``HTTPResponseReplacement``.
public final class HTTPBodyWriter: Sendable {
    private let sink: @Sendable ([UInt8]) throws -> Void

    init(sink: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.sink = sink
    }

    /// A writer that hands every piece to `sink` (which may block, or pass the piece on to another writer): to run a
    /// producer outside a connection (tests, tools) or to observe what it writes.
    public static func forwarding(_ sink: @escaping @Sendable ([UInt8]) throws -> Void) -> HTTPBodyWriter {
        HTTPBodyWriter(sink: sink)
    }

    /// Sends `bytes` as the next piece of the body (an empty array sends nothing).
    ///
    /// - Throws: `HTTPServerError` with code `.connectionClosed` when the client is gone or the server is stopping,
    ///   `.streamStalled` when the client read nothing for ``HTTPLimits/streamStallTimeout`` (its connection closed,
    ///   or on HTTP/2 its stream reset); the stream closure should then return (or rethrow) promptly.
    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try sink(bytes)
    }

    /// Sends the UTF-8 bytes of `text`.
    public func write(_ text: String) throws {
        try write(Array(text.utf8))
    }
}

/// Thrown by a streamed body's producer before it wrote anything: `response` (whose body must be `.bytes`) is sent
/// instead of the streamed response, whose head has not left yet. Thrown after a write, it is a failure like any
/// other (the streamed body is cut).
public struct HTTPResponseReplacement: Error, Sendable {
    /// The response sent instead.
    public var response: HTTPResponse

    /// A replacement by `response`.
    public init(_ response: HTTPResponse) {
        self.response = response
    }
}
