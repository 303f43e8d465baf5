public import DqliteClient

/// The statements of one ``ClusterClient/transaction(_:)``: they run on one leader connection between its BEGIN
/// and its COMMIT, and are never retried. One of ``ClusterClient/openTransaction(_:)`` lives across calls and ends
/// with ``commit()`` or ``rollback()``.
///
/// Not `Sendable`: the transaction's connection is used by the thread running the transaction's body only, and
/// the value must not outlive the body (or, opened with ``ClusterClient/openTransaction(_:)``, by one thread at a
/// time, as its holder orders its calls).
public final class ClusterTransaction {
    private let pooled: PooledConnection
    /// The client whose ``ClusterClient/timed(_:)`` reports the round trips.
    private let client: ClusterClient
    /// `false` once the connection broke or the leader refused a statement as a non-leader: the transaction is
    /// over on the server, uncommitted.
    public private(set) var isUsable = true
    /// Whether ``commit()`` or ``rollback()`` ended it.
    private var isEnded = false

    init(_ pooled: PooledConnection, client: ClusterClient) {
        self.pooled = pooled
        self.client = client
    }

    /// Runs one statement that reads (QUERY_SQL) in the transaction.
    ///
    /// - Throws: ``ClusterError`` `.failure` (the transaction stays open), `.unavailable` (the transaction is
    ///   over, uncommitted), `.invalidArgument`, `.tooLarge`.
    public func query(_ sql: String, parameters: [DqliteValue] = []) throws(ClusterError) -> DqliteRows {
        try run(sql) { () throws(DqliteError) in
            try pooled.connection.query(sql: sql, parameters: parameters, database: pooled.database)
        }
    }

    /// Runs SQL that may write (EXEC_SQL) in the transaction; it is committed with the transaction.
    ///
    /// - Throws: as ``query(_:parameters:)``.
    public func exec(_ sql: String, parameters: [DqliteValue] = []) throws(ClusterError) -> DqliteExecResult {
        try run(sql) { () throws(DqliteError) in
            try pooled.connection.exec(sql: sql, parameters: parameters, database: pooled.database)
        }
    }

    /// Commits a transaction of ``ClusterClient/openTransaction(_:)`` and gives its connection back.
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when the connection broke before COMMIT was sent (nothing was
    ///   committed), `.outcomeUnknown` when COMMIT was sent and no answer came, `.failure` when the leader refused
    ///   it (rolled back).
    public func commit() throws(ClusterError) {
        guard !isEnded else {
            throw ClusterError(kind: .invalidArgument, message: "the transaction has ended")
        }
        isEnded = true
        guard isUsable else {
            pooled.connection.close()
            throw ClusterError(
                kind: .unavailable,
                message: "the connection to the leader broke during the transaction: nothing was committed"
            )
        }
        try client.commitOpenTransaction(pooled)
    }

    /// Rolls back a transaction of ``ClusterClient/openTransaction(_:)`` and gives its connection back (closes it
    /// when the ROLLBACK fails); later calls do nothing.
    public func rollback() {
        guard !isEnded else { return }
        isEnded = true
        if isUsable, (try? pooled.connection.exec(sql: "ROLLBACK", database: pooled.database)) != nil {
            client.checkIn(pooled)
        } else {
            pooled.connection.close()
        }
    }

    private func run<T>(_ sql: String, _ request: () throws(DqliteError) -> T) throws(ClusterError) -> T {
        guard isUsable, !isEnded else {
            throw ClusterError(
                kind: .unavailable,
                message: "the transaction's connection to the leader broke",
                sql: sql
            )
        }
        do throws(DqliteError) {
            return try client.timed(request)
        } catch {
            switch error.kind {
            case .failure where !error.isNotLeader:
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
}
