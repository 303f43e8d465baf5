/// An error of the HTTP server module: a failed system call, a bad listen address, or a closed connection.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error; more codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A system call failed; `errno` says why.
        public static let systemCall = Code("systemCall")
        /// A listen address could not be understood.
        public static let invalidAddress = Code("invalidAddress")
        /// `start()` was called twice, or after `shutdown`.
        public static let invalidState = Code("invalidState")
        /// The client went away or the server is stopping; a streamed body cannot be sent.
        public static let connectionClosed = Code("connectionClosed")
        /// The client read nothing of a streamed body for ``HTTPLimits/streamStallTimeout``: its connection was
        /// closed (HTTP/2: its stream reset).
        public static let streamStalled = Code("streamStalled")

        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation (never contains request data).
    public var message: String
    /// The `errno` value, for `.systemCall`.
    public var errno: Int32?

    /// Creates an error.
    public init(code: Code, message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String {
        if let errno { return "\(code): \(message) (errno \(errno): \(SystemCall.errorString(errno)))" }
        return "\(code): \(message)"
    }

    static func systemCall(_ name: String, errno: Int32) -> HTTPServerError {
        HTTPServerError(code: .systemCall, message: "\(name) failed", errno: errno)
    }

    static let connectionClosed = HTTPServerError(code: .connectionClosed, message: "connection closed")
    static let streamStalled = HTTPServerError(code: .streamStalled, message: "the client stopped reading the stream")
}
