import DqliteClient

/// The retry rules as a pure function of a failed request's error: a read may be retried anywhere; a write
/// only when it certainly did not reach the leader; a write whose outcome is unknown is never retried.
///
/// Certainly not executed: a connect failure (no request was sent), FAILURE `SQLITE_IOERR_NOT_LEADER` (dqlite
/// checks leadership before running a statement), FAILURE `SQLITE_BUSY` (the leader's write lock was held: the
/// statement did not run), FAILURE `SQLITE_NOTFOUND` ("no database opened": dqlite closes a connection's database
/// when its node loses leadership, so a pooled connection to a node that lost it and won it back between two uses
/// answers this before running anything; a new connection opens the database again), an error before the request's
/// first byte reached the kernel
/// (``DqliteError/requestNotSent``). Unknown: the connection broke or timed out after the request was sent, or the
/// leader answered another `SQLITE_IOERR` code (`SQLITE_IOERR_LEADERSHIP_LOST` and the like come from the
/// replication of the write, which may have been committed by the new leader).
enum RetryPolicy {
    enum Decision: Equatable {
        /// Try again, on a new connection to a (possibly new) leader: the one used is closed, and when
        /// `forgetLeader` the leader must be looked up again.
        case retry(forgetLeader: Bool)
        /// Give up with this kind of error; `keepConnection` when the connection is still in step and reusable.
        case fail(ClusterError.Kind, keepConnection: Bool)
    }

    /// SQLite's primary result codes that matter here.
    static let busyCode: UInt64 = 5
    static let ioErrorCode: UInt64 = 10

    static func decide(after error: DqliteError, isWrite: Bool) -> Decision {
        switch error.kind {
        case .failure:
            if error.isNotLeader || error.isGatewayClosed {
                return .retry(forgetLeader: true)
            }
            if error.code & 0xff == busyCode {
                return .retry(forgetLeader: false)
            }
            if error.code & 0xff == ioErrorCode {
                return isWrite ? .fail(.outcomeUnknown, keepConnection: false) : .retry(forgetLeader: true)
            }
            return .fail(.failure, keepConnection: true)
        case .invalidArgument:
            return .fail(.invalidArgument, keepConnection: true)
        case .tooLarge:
            return .fail(.tooLarge, keepConnection: false)
        case .io, .timeout, .connectionClosed, .protocolViolation:
            if !isWrite || error.requestNotSent {
                return .retry(forgetLeader: true)
            }
            return .fail(.outcomeUnknown, keepConnection: false)
        }
    }
}
