import DqliteClient
import DqliteCluster
import SQLiteEngine

/// Where the cluster backend sends a request's statements: the leader in autocommit mode through the writing or
/// the read-only client, or one leader connection inside a transaction. A statement is kept prepared on the leader
/// connection that runs it (``DqliteCluster/ClusterClient/query(_:parameters:deadline:prepared:)``): each holds one
/// statement, as the copy of the schema split them; only ``execScript(_:)`` sends several at once.
///
/// Not `Sendable`: a ``ClusterTransaction`` belongs to the thread running its transaction.
enum ClusterTarget {
    /// Autocommit statements of `/update` and `/batch`; also opens the transactions a `params_batch` or a
    /// `RETURNING` statement needs.
    case client(ClusterClient)
    /// `/query`: leader connections that ran `PRAGMA query_only=1`, so a statement that would write is refused
    /// by SQLite on the leader, whatever this node's copy of the schema said.
    case readOnly(ClusterClient)
    /// The statements of `/transaction`, and of a `params_batch` or `RETURNING` statement made atomic.
    case transaction(ClusterTransaction)

    /// Runs a statement that returns rows (QUERY); outside a transaction, one not answered by `deadline` (the
    /// request's time limit) is 400 `TIMEOUT` (inside one, the transaction's connection waits for its answer).
    func query(
        _ sql: String,
        _ parameters: [DqliteValue],
        until deadline: ContinuousClock.Instant? = nil
    ) throws(APIError) -> DqliteRows {
        do {
            switch self {
            case .client(let client), .readOnly(let client):
                return try client.query(sql, parameters: parameters, deadline: deadline, prepared: true)
            case .transaction(let transaction):
                return try transaction.query(sql, parameters: parameters, prepared: true)
            }
        } catch {
            throw APIError(cluster: error, isWrite: isWrite)
        }
    }

    /// Runs a read through the read-only client as ``query(_:_:until:)`` does, in the same write as `PRAGMA
    /// schema_version` (one round trip for both): a leader whose schema version is not `expected` throws
    /// ``APIError/staleSchemaCopy``, since the statement was checked on a copy of another schema.
    func query(
        _ sql: String,
        _ parameters: [DqliteValue],
        until deadline: ContinuousClock.Instant?,
        expectingSchemaVersion expected: Int64
    ) throws(APIError) -> DqliteRows {
        guard case .readOnly(let client) = self else { return try query(sql, parameters, until: deadline) }
        let answer: (probe: DqliteRows, rows: DqliteRows)
        do {
            answer = try client.query(sql, parameters: parameters, deadline: deadline, after: "PRAGMA schema_version")
        } catch {
            throw APIError(cluster: error, isWrite: false)
        }
        guard case .integer(expected)? = answer.probe.rows.first?.first else { throw APIError.staleSchemaCopy }
        return answer.rows
    }

    /// Runs a statement without rows (EXEC).
    func exec(_ sql: String, _ parameters: [DqliteValue]) throws(APIError) -> DqliteExecResult {
        try exec(sql, parameters, prepared: true)
    }

    /// Runs SQL of several statements without rows, whole (EXEC_SQL: parsed by the leader each time), such as a
    /// group's `RELEASE a; SAVEPOINT b`.
    func execScript(_ sql: String) throws(APIError) -> DqliteExecResult {
        try exec(sql, [], prepared: false)
    }

    private func exec(_ sql: String, _ parameters: [DqliteValue], prepared: Bool) throws(APIError) -> DqliteExecResult {
        do {
            switch self {
            case .client(let client), .readOnly(let client):
                return try client.exec(sql, parameters: parameters, prepared: prepared)
            case .transaction(let transaction):
                return try transaction.exec(sql, parameters: parameters, prepared: prepared)
            }
        } catch {
            throw APIError(cluster: error, isWrite: isWrite)
        }
    }

    /// Runs one of the server's own statements (on its tables, which the leader's policy lets through for it);
    /// returns its rows (none for a statement other than a `SELECT`).
    func serverStatement(
        _ sql: String,
        _ arguments: [DatabaseValue],
        until deadline: ContinuousClock.Instant
    ) throws(APIError) -> [[DatabaseValue]] {
        let parameters = arguments.map(\.dqliteValue)
        if sql.hasPrefix("SELECT") {
            return try query(sql, parameters, until: deadline).rows.map { $0.map(\.databaseValue) }
        }
        _ = try exec(sql, parameters)
        return []
    }

    /// Runs `body` atomically: in a savepoint inside a transaction already open, else in a new transaction of the
    /// writing client (BEGIN … COMMIT on one leader connection).
    func atomically<T>(_ body: (ClusterTarget) throws(APIError) -> T) throws(APIError) -> T {
        switch self {
        case .transaction:
            let name = "sqlited_params_batch"
            _ = try exec("SAVEPOINT \(name)", [])
            do {
                let value = try body(self)
                _ = try exec("RELEASE \(name)", [])
                return value
            } catch {
                _ = try? exec("ROLLBACK TO \(name)", [])
                _ = try? exec("RELEASE \(name)", [])
                throw error
            }
        case .client(let client), .readOnly(let client):
            do {
                return try client.transaction(immediate: true) { transaction in try body(.transaction(transaction)) }
            } catch let error as APIError {
                throw error
            } catch let error as ClusterError {
                throw APIError(cluster: error, isWrite: true)
            } catch {
                throw APIError(error, db: nil)
            }
        }
    }

    private var isWrite: Bool {
        if case .readOnly = self { return false }
        return true
    }
}
