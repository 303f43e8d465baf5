public import DqliteClient

/// The statements of one ``ClusterClient/transaction(_:)``: they run on one leader connection between its BEGIN
/// and its COMMIT, and are never retried.
///
/// Not `Sendable`: the transaction's connection is used by the thread running the transaction's body only, and
/// the value must not outlive the body.
public final class ClusterTransaction {
    private let pooled: PooledConnection
    /// The client whose ``ClusterClient/timed(_:)`` reports the round trips.
    private let client: ClusterClient
    /// `false` once the connection broke or the leader refused a statement as a non-leader: the transaction is
    /// over on the server, uncommitted.
    private(set) var isUsable = true

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

    private func run<T>(_ sql: String, _ request: () throws(DqliteError) -> T) throws(ClusterError) -> T {
        guard isUsable else {
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
