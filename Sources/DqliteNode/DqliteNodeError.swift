/// The one error type of DqliteNode: a `dqlite_node_*` call failed, or the node was used out of order.
///
/// `code` is the call's return value (`DQLITE_ERROR` 1, `DQLITE_MISUSE` 2, `DQLITE_NOMEM` 3, or a raft/libuv code
/// passed through); `message` is `dqlite_node_errmsg` when the library set one, else a description of our own.
public struct DqliteNodeError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely.
    public enum Kind: Sendable, Hashable {
        /// A `dqlite_node_*` function returned an error code.
        case library
        /// The configuration was refused before calling the library (missing data directory, bad id or address).
        case invalidConfiguration
        /// The node was started twice, or used after ``DqliteNode/stop()``.
        case misuse
    }

    public var kind: Kind
    /// The C function that failed, such as `dqlite_node_start`.
    public var function: String?
    /// The C function's return code (0 when the error is not the library's).
    public var code: Int32
    public var message: String

    public init(kind: Kind, function: String? = nil, code: Int32 = 0, message: String) {
        self.kind = kind
        self.function = function
        self.code = code
        self.message = message
    }

    public var description: String {
        guard let function else { return message }
        return "\(function) failed (\(code)): \(message)"
    }
}
