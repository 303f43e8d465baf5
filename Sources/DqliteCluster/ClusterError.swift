import DqliteClient
import DqliteNode

/// The one error type of DqliteCluster: a statement the leader refused, a request whose outcome is unknown, no
/// leader within the deadline, or a membership step that failed.
///
/// `message` never contains a bound value (parameters are never put into errors); `sql` is the statement's text
/// with its placeholders.
public struct ClusterError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely; the cases are stable, a caller maps them to its own answers.
    public enum Kind: Sendable, Hashable {
        /// The leader answered FAILURE to the statement (a constraint, a syntax error, `SQLITE_BUSY` after the
        /// deadline...): ``ClusterError/code`` is SQLite's extended result code. The statement did not change the
        /// database.
        case failure
        /// A write reached the leader, or may have, and no answer came: the connection broke after the request was
        /// sent, the answer did not arrive in time, or the leader lost its leadership while replicating it. The
        /// write may or may not be committed. Never retried by the client.
        case outcomeUnknown
        /// No leader could be reached before the deadline, or the connection of a transaction broke before its
        /// COMMIT was sent: the request certainly did not change the database, and may be retried.
        case unavailable
        /// A read sent to the leader was not answered by the caller's deadline (a request's time limit); not
        /// retried. The leader may still be running it.
        case deadlineExceeded
        /// The request cannot be encoded (text with NUL, too many parameters); nothing was sent.
        case invalidArgument
        /// An answer larger than the configured limits.
        case tooLarge
        /// A membership configuration that cannot work (node id 1 given addresses to join, a data directory that
        /// belongs to another node id, an address another node holds).
        case invalidConfiguration
        /// The embedded dqlite node failed to be created, started or stopped.
        case node
        /// A membership request (ADD, ASSIGN, REMOVE, TRANSFER) failed, or did not complete before its deadline.
        case membership
    }

    public var kind: Kind
    /// SQLite's extended result code for `.failure` (the server's FAILURE code), the underlying code otherwise
    /// when there is one, else 0.
    public var code: UInt64
    public var message: String
    /// The SQL text of the statement, for errors of statements.
    public var sql: String?

    public init(kind: Kind, code: UInt64 = 0, message: String, sql: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text: String
        switch kind {
        case .failure: text = "dqlite failure \(code): \(message)"
        case .outcomeUnknown: text = "the outcome of the write is unknown: \(message)"
        default: text = message
        }
        if let sql {
            text += " — while executing `\(sql)`"
        }
        return text
    }

    init(_ kind: Kind, _ error: DqliteError, sql: String? = nil) {
        self.init(kind: kind, code: error.code, message: error.description, sql: sql)
        if kind == .failure {
            message = error.message
        }
    }

    init(node error: DqliteNodeError) {
        self.init(kind: .node, code: UInt64(UInt32(bitPattern: error.code)), message: error.description)
    }
}
