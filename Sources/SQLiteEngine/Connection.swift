internal import CSQLite

/// The state of one open `sqlite3*` shared by a ``Database`` and the statements prepared on it.
///
/// When the database closes, `handle` becomes `nil` and every statement prepared on it knows it was finalized with
/// the connection. A reopened database gets a new `Connection`, so old statements never touch the new handle. Like
/// ``Database``, it is confined to one thread at a time.
final class Connection {
    /// The `sqlite3*`, or `nil` once closed.
    var handle: OpaquePointer?
    /// Rows changed by the last statement that finished (0 for read-only statements and DDL).
    var lastChanges = 0
    /// The deadline of the innermost ``Database/withDeadline(_:_:)``, if any. (Unchecked exclusivity, as
    /// `Database.connection`: read and set whole, by the one thread using the connection.)
    @exclusivity(unchecked) var deadline: ContinuousClock.Instant?
    /// Set by the progress handler once `deadline` has passed, to tell a timeout from an interrupt.
    @exclusivity(unchecked) var deadlineExpired = false
    /// The statements the engine prepared and has not finalized yet; ``Database/close()`` finalizes these, and only
    /// these: a virtual table module (R*Tree, FTS5) keeps statements of its own on the connection and finalizes them
    /// itself while the connection closes (finalizing them first made that close hang on a freed mutex).
    var liveStatements = Set<OpaquePointer>()

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Builds the error for a failed call; reads `sqlite3_errmsg`, so call it before anything else touches the handle.
    func error(code: Int32, sql: String?) -> DatabaseError {
        guard let handle else {
            return .databaseClosed
        }
        let extended = ResultCode(rawValue: code)
        // sqlite3_errmsg describes the most recent failure, which is this one: the connection is confined to the
        // calling thread, so nothing ran in between.
        let message = String(cString: sqlite3_errmsg(handle))
        if extended.primary == .SQLITE_INTERRUPT {
            if deadlineExpired {
                return DatabaseError(
                    kind: .timeout,
                    extendedResultCode: extended,
                    message: "the statement exceeded its time limit and was interrupted",
                    sql: sql
                )
            }
            return DatabaseError(kind: .interrupted, extendedResultCode: extended, message: message, sql: sql)
        }
        return DatabaseError(kind: .sqlite, extendedResultCode: extended, message: message, sql: sql)
    }

    /// Throws the connection's error unless `code` is `SQLITE_OK`.
    func check(_ code: Int32, sql: String? = nil) throws(DatabaseError) {
        if code != SQLITE_OK {
            throw error(code: code, sql: sql)
        }
    }

    /// Called by the progress handler: non-zero aborts the running statement with `SQLITE_INTERRUPT`.
    func progressTick() -> Int32 {
        guard let deadline else {
            return 0
        }
        if ContinuousClock.now >= deadline {
            deadlineExpired = true
            return 1
        }
        return 0
    }
}
