public import DqliteClient

/// The statements of one ``ClusterClient/transaction(immediate:_:)``: they run on one leader connection between its
/// BEGIN and its COMMIT, and are never retried. One of ``ClusterClient/beginTransaction(immediate:deadline:)`` or
/// ``ClusterClient/openTransaction(_:)`` lives across calls and ends with ``commit()`` or ``rollback()``.
///
/// Not `Sendable`: the transaction's connection is used by one thread at a time (the thread running the
/// transaction's body, or, for one that lives across calls, as its holder orders its calls).
public final class ClusterTransaction {
    let pooled: PooledConnection
    /// The client whose ``ClusterClient/timed(_:)`` reports the round trips.
    private let client: ClusterClient
    /// `false` once the connection broke or the leader refused a statement as a non-leader: the transaction is
    /// over on the server, uncommitted.
    public private(set) var isUsable = true
    /// `false` once SQLite rolled the transaction back on the leader with a failing statement (`ON CONFLICT
    /// ROLLBACK`, `RAISE(ROLLBACK, …)`, a full database or an interrupt end the whole transaction): nothing of it
    /// will be committed, and its later statements are refused here instead of running in autocommit mode.
    public private(set) var isActive = true
    /// Whether ``ClusterClient/commit(_:)`` or ``ClusterClient/rollback(_:)`` has taken the connection back.
    private var isFinished = false

    init(_ pooled: PooledConnection, client: ClusterClient) {
        self.pooled = pooled
        self.client = client
    }

    /// Runs one statement that reads (QUERY_SQL) in the transaction.
    ///
    /// - Throws: ``ClusterError`` `.failure` (the transaction stays open), `.unavailable` (the transaction is
    ///   over, uncommitted), `.invalidArgument`, `.tooLarge`.
    ///
    /// With `prepared`, `sql` must hold one statement, kept prepared on the transaction's connection (see
    /// ``ClusterClient/query(_:parameters:deadline:prepared:)``).
    public func query(
        _ sql: String,
        parameters: [DqliteValue] = [],
        prepared: Bool = false
    ) throws(ClusterError) -> DqliteRows {
        try run(sql) { () throws(DqliteError) in
            try pooled.query(sql, parameters: parameters, deadline: nil, prepared: prepared, timedBy: client)
        }
    }

    /// Runs SQL that may write (EXEC_SQL) in the transaction; it is committed with the transaction.
    ///
    /// - Throws: as ``query(_:parameters:prepared:)``.
    public func exec(
        _ sql: String,
        parameters: [DqliteValue] = [],
        prepared: Bool = false
    ) throws(ClusterError) -> DqliteExecResult {
        try run(sql) { () throws(DqliteError) in
            try pooled.exec(sql, parameters: parameters, prepared: prepared, timedBy: client)
        }
    }

    /// Commits the transaction and gives its connection back (``ClusterClient/commit(_:)``).
    public func commit() throws(ClusterError) {
        try client.commit(self)
    }

    /// Rolls the transaction back and gives its connection back (``ClusterClient/rollback(_:)``); later calls do
    /// nothing.
    public func rollback() {
        client.rollback(self)
    }

    /// Marks the transaction over for its client; false when it was already.
    func finish() -> Bool {
        defer { isFinished = true }
        return !isFinished
    }

    /// SQLite's `SQLITE_ABORT_ROLLBACK`: a statement of a transaction SQLite rolled back already.
    public static let rolledBackCode: UInt64 = 516

    private func run<T>(_ sql: String, _ request: () throws(DqliteError) -> T) throws(ClusterError) -> T {
        guard isUsable, !isFinished else {
            throw ClusterError(
                kind: .unavailable,
                message: "the transaction's connection to the leader broke",
                sql: sql
            )
        }
        guard isActive else {
            throw ClusterError(
                kind: .failure,
                code: Self.rolledBackCode,
                message: "SQLite rolled the transaction back on the leader with an earlier statement",
                sql: sql
            )
        }
        do throws(DqliteError) {
            return try request()
        } catch {
            switch error.kind {
            case .failure where !error.isNotLeader && !error.isGatewayClosed:
                checkStillOpen()
                throw ClusterError(.failure, error, sql: sql)
            case .invalidArgument:
                throw ClusterError(.invalidArgument, error, sql: sql)
            case .tooLarge:
                isUsable = false
                throw ClusterError(.tooLarge, error, sql: sql)
            default:
                // dqlite replicates a transaction's pages at COMMIT only: before it, a lost connection or leader
                // takes the transaction with it.
                isUsable = false
                pooled.connection.close()
                throw ClusterError(.unavailable, error, sql: sql)
            }
        }
    }

    /// After a failed statement: whether SQLite kept the transaction open. The wire does not tell, so a `BEGIN`
    /// is sent: inside a transaction SQLite refuses it and nothing changes; when it succeeds the failure had
    /// rolled the transaction back, and the transaction the probe opened is rolled back at once.
    private func checkStillOpen() {
        do throws(DqliteError) {
            _ = try client.timed { () throws(DqliteError) in
                try pooled.connection.exec(sql: "BEGIN", database: pooled.database)
            }
        } catch {
            if error.kind != .failure {
                isUsable = false
                pooled.connection.close()
            }
            return
        }
        isActive = false
        do throws(DqliteError) {
            _ = try pooled.connection.exec(sql: "ROLLBACK", database: pooled.database)
        } catch {
            isUsable = false
            pooled.connection.close()
        }
    }
}
