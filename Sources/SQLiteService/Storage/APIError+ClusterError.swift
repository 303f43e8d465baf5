import DqliteCluster
import SQLiteEngine

extension APIError {
    /// Maps an error of the cluster client to the contract's error, as the local backend reports the same failure.
    ///
    /// A statement the leader refused carries SQLite's extended result code and message (the wire's FAILURE), so it
    /// becomes the same `SQLITE_*` error as on the local backend; on the read-only client (`/query`), whose leader
    /// connections run `PRAGMA query_only=1`, `SQLITE_READONLY` is a statement that would write:
    /// `READONLY_STATEMENT`. A write whose outcome is unknown (sent, and then the connection or the leadership was
    /// lost) is 503 `UNAVAILABLE` with `Retry-After`: it may or may not have been committed, so the client must
    /// check before it retries. No leader in time is 503 `UNAVAILABLE` too, and certainly changed nothing. A read the
    /// leader did not answer within the request's time limit is 400 `TIMEOUT`, as on the local backend.
    ///
    /// - Parameters:
    ///   - isWrite: Whether the statement went through the writing client (`SQLITE_READONLY` is then SQLite's).
    init(cluster error: ClusterError, isWrite: Bool) {
        switch error.kind {
        case .failure:
            let code = Int32(truncatingIfNeeded: error.code)
            if !isWrite, code == ResultCode.SQLITE_READONLY.rawValue {
                self = .readonlyStatement("the statement would modify the database: use POST /update")
                return
            }
            self = .sqlite(name: ResultCode(rawValue: code).name, code: code, message: error.message)
        case .outcomeUnknown:
            self = .unavailable(
                "the write was sent to the cluster's leader and then the connection or the leadership was lost: "
                    + "it may or may not have been committed (read before retrying)",
                retryAfter: 1
            )
        case .unavailable:
            self = .unavailable("no leader of the cluster answered in time; nothing was changed", retryAfter: 1)
        case .deadlineExceeded:
            // A read past the request's time limit: the local backend's status and code for an interrupted
            // statement, and a message that says where the time went.
            self = .timeout("the statement time limit was reached before the cluster's leader answered")
        case .invalidArgument:
            // The protocol NUL-terminates text: a value with U+0000 cannot be sent (nothing was).
            self = .bindError("a value cannot be sent to the cluster (text containing U+0000)")
        case .tooLarge:
            self = .sqlite(
                name: "SQLITE_TOOBIG",
                code: ResultCode.SQLITE_TOOBIG.rawValue,
                message: "the result exceeds the size the cluster client accepts (select fewer rows or columns)"
            )
        default:
            self = .internal("unexpected cluster error")
        }
    }
}
