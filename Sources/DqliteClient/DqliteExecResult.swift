/// The RESULT response of EXEC and EXEC_SQL: `sqlite3_last_insert_rowid` and `sqlite3_changes` on the leader.
public struct DqliteExecResult: Sendable, Hashable {
    /// The rowid of the last row inserted by the connection (sent as an unsigned word, it is SQLite's signed rowid).
    public var lastInsertID: Int64
    /// The rows changed by the last statement (of a multi-statement EXEC_SQL, the last one).
    public var rowsAffected: UInt64

    public init(lastInsertID: Int64, rowsAffected: UInt64) {
        self.lastInsertID = lastInsertID
        self.rowsAffected = rowsAffected
    }
}
