/// The one error type of DqliteClient: the server's FAILURE response, or a protocol, I/O or usage error.
///
/// `message` never contains a bound value (parameters are never put into errors), so the error can be logged and
/// returned to clients. `sql` is the statement's text as written, with its placeholders.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol>
public struct DqliteError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely.
    public enum Kind: Sendable, Hashable {
        /// The server answered FAILURE: ``DqliteError/code`` is its code (an SQLite extended result code, or a
        /// dqlite/Raft code such as `DQLITE_PROTO` 1001), ``DqliteError/message`` its message. The connection
        /// remains usable.
        case failure
        /// A message that does not follow the protocol: truncated, garbled, or of a type the request does not
        /// expect. The connection is closed.
        case protocolViolation
        /// A message or a result set larger than the configured ``DqliteLimits``. The connection is closed.
        case tooLarge
        /// The request cannot be encoded: text containing NUL, more than 255 parameters, a parameter type the
        /// server does not bind. Nothing was sent.
        case invalidArgument
        /// A system call failed; ``DqliteError/code`` is `errno`. The connection is closed.
        case io
        /// The connect or request deadline passed. The connection is closed: the request may or may not have
        /// reached the server.
        case timeout
        /// The peer closed the connection, or an earlier error closed it.
        case connectionClosed
    }

    public var kind: Kind
    /// The server's code for `.failure`, `errno` for `.io`, 0 otherwise.
    public var code: UInt64
    public var message: String
    /// The SQL text of the request, for errors of requests that carry SQL.
    public var sql: String?
    /// Whether the request certainly did not reach the server: the call failed before the first byte of its
    /// request was handed to the kernel (it could not be encoded, the connection was already closed, or the first
    /// `send(2)` failed). Only then may a caller retry a write on another connection; any other error of a request
    /// that changes the database leaves its outcome unknown (a FAILURE answer aside).
    public var requestNotSent: Bool

    public init(kind: Kind, code: UInt64 = 0, message: String, sql: String? = nil, requestNotSent: Bool = false) {
        self.kind = kind
        self.code = code
        self.message = message
        self.sql = sql
        self.requestNotSent = requestNotSent
    }

    /// `SQLITE_IOERR_NOT_LEADER` (`SQLITE_IOERR | 40 << 8`): the node is not the leader; ask LEADER and reconnect.
    /// The statement was not executed.
    public static let notLeaderCode: UInt64 = 10 | 40 << 8

    /// `SQLITE_IOERR_LEADERSHIP_LOST` (`SQLITE_IOERR | 41 << 8`): leadership was lost while a write was being
    /// replicated; whether it was committed is unknown.
    public static let leadershipLostCode: UInt64 = 10 | 41 << 8

    /// `RAFT_NOTLEADER` (7), passed through as the FAILURE code: dqlite 1.11 answers a write with raft's own code
    /// when `raft_apply` or `raft_barrier` refuses it because the node is not the leader or is handing the leadership
    /// over (`sqlited cluster transfer`, a leader stopping). The statement ran on the leader's connection but its
    /// pages were discarded (`VfsAbort`) before anything was appended to the Raft log, so nothing was committed; the
    /// message is whatever SQLite last said on that connection (often "no more rows available"). The same number is
    /// `SQLITE_NOMEM`, which also leaves nothing committed, so reading it as "not the leader" is safe either way.
    public static let raftNotLeaderCode: UInt64 = 7

    /// Whether the server refused the request because it is not (or is no longer) the leader: the request changed
    /// nothing, and may be sent again to the leader.
    public var isNotLeader: Bool {
        kind == .failure && (code == Self.notLeaderCode || code == Self.raftNotLeaderCode)
    }

    /// `SQLITE_NOTFOUND` (12) from dqlite's gateway: "no database opened" or "no statement with the given id". A
    /// node closes a client connection's database and statements when it stops leading (a leadership transfer, an
    /// election): the request was not run.
    public static let gatewayClosedCode: UInt64 = 12

    /// Whether the server refused the request because this connection's database (or statement) is gone — closed
    /// when the node stopped leading: nothing ran, and a transaction open on the connection is lost uncommitted
    /// (dqlite replicates a transaction's pages at its COMMIT only).
    public var isGatewayClosed: Bool {
        kind == .failure && code == Self.gatewayClosedCode
    }

    /// Whether the server lost leadership during the request.
    public var isLeadershipLost: Bool {
        kind == .failure && code == Self.leadershipLostCode
    }

    public var description: String {
        var text: String
        switch kind {
        case .failure: text = "dqlite failure \(code): \(message)"
        case .io: text = "\(message) (errno \(code))"
        default: text = message
        }
        if let sql {
            text += " — while executing `\(sql)`"
        }
        return text
    }

    static func violation(_ message: String) -> DqliteError {
        DqliteError(kind: .protocolViolation, message: message)
    }

    static func truncated(_ what: String) -> DqliteError {
        DqliteError(kind: .protocolViolation, message: "truncated message: \(what) runs past the end of the body")
    }

    static func invalidArgument(_ message: String) -> DqliteError {
        DqliteError(kind: .invalidArgument, message: message, requestNotSent: true)
    }
}
