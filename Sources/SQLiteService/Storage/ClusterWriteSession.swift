import DqliteCluster
import SQLiteEngine

/// A write request's statements on the cluster's leader: each checked on this node's copy of the leader's schema
/// (``SchemaShadow``), then run through ``ClusterStatementRunner``, in autocommit mode or inside one leader
/// transaction (``atomically(mode:marksRolledBack:_:)``).
struct ClusterWriteSession: WriteSession {
    /// The write copy of the leader's schema, held by this request (``SchemaShadow/withSchema(refreshingFrom:_:)``).
    let schema: Database
    let writer: ClusterClient
    /// Where the statements go: the writing client (autocommit), or a transaction's connection.
    let target: ClusterTarget
    /// The request's time limit: a transaction meeting another node's lock is tried again until then.
    let deadline: ContinuousClock.Instant
    /// Whether the request runs inside a group's leader transaction (``ClusterGroupTransaction``), in a savepoint
    /// of its own.
    var grouped = false

    var records: any RecordStatementRunner { ClusterRecordRunner(target: target) }

    func run(_ statement: StatementRequest, context: inout RequestContext, into out: inout JSONWriter) throws(APIError)
    {
        try ClusterStatementRunner(target: target).run(statement, on: schema, context: &context, into: &out)
    }

    func run(scriptStatement: Statement, context: inout RequestContext, into out: inout JSONWriter) throws(APIError) {
        // Split and checked on the copy of the schema (SQLite's own parser, as on the local backend), each statement
        // run on the leader before the next is prepared.
        let plan = try ClusterStatementPlan(scriptStatement: scriptStatement, context: context)
        try ClusterStatementRunner(target: target).run(plan, on: schema, context: &context, into: &out)
    }

    /// Each statement commits on its own on the leader (other nodes' statements may run between them); inside a
    /// transaction (a keyed `/batch`), in a savepoint of its own, so a failing statement undoes only itself.
    func alone<T>(_ body: () throws(APIError) -> T) throws(APIError) -> T {
        guard case .transaction = target else { return try body() }
        return try target.atomically { _ throws(APIError) in try body() }
    }

    /// Run on the leader as they are: its policy lets the server's tables through (``LeaderPolicy``), and this node's
    /// copy of the schema does not check them.
    func serverStatement(_ sql: ServerSQL, _ arguments: [DatabaseValue]) throws(APIError) -> [[DatabaseValue]] {
        try target.serverStatement(sql.text, arguments, until: deadline)
    }

    /// Inside a group, a statement SQLite answered by rolling the whole transaction back (`ON CONFLICT ROLLBACK`,
    /// `RAISE(ROLLBACK, …)`) took the request's earlier statements with it: the batch fails as a whole, as locally.
    func afterBatchStep(_ run: BatchRun) throws(APIError) {
        if transactionLost { throw APIError.transactionLost }
    }

    func batchFailedAsAWhole(_ error: APIError) -> APIError? {
        guard transactionLost else { return nil }
        var error = error
        error.rolledBack = true
        return error
    }

    /// Whether this grouped request's leader transaction was rolled back by SQLite or lost with its connection.
    private var transactionLost: Bool {
        guard grouped, case .transaction(let transaction) = target else { return false }
        return !(transaction.isUsable && transaction.isActive)
    }

    /// BEGIN, the body, COMMIT on one leader connection (the `mode` has no effect: the leader runs one write
    /// transaction at a time), tried again from the start while another node's transaction holds the leader's write
    /// lock. DDL the body applied to the copy of the schema is undone when it fails (the leader rolled it back).
    func atomically<T>(
        mode: TransactionRequest.Mode?,
        marksRolledBack: Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        if case .transaction = target {
            // Already inside one: a savepoint there (a `params_batch` or `RETURNING` statement does the same). In a
            // group it stands for the request's own transaction, so its failure says it was rolled back, as locally.
            do throws(APIError) {
                return try target.atomically { (target) throws(APIError) in
                    try body(
                        ClusterWriteSession(
                            schema: schema,
                            writer: writer,
                            target: target,
                            deadline: deadline,
                            grouped: grouped
                        )
                    )
                }
            } catch {
                var error = error
                if grouped && marksRolledBack && !Self.isOutcomeUnknown(error) { error.rolledBack = true }
                throw error
            }
        }
        return try BusyRetry.run(until: deadline) { () throws(APIError) in
            try attempt(marksRolledBack: marksRolledBack, body)
        }
    }

    private func attempt<T>(
        marksRolledBack: Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        let savepoint = "sqlited_transaction_attempt"
        do {
            try schema.beginSavepoint(savepoint)
        } catch {
            // Without the savepoint a failed attempt's DDL would stay in the copy of the schema.
            throw APIError(error, db: schema)
        }
        let value: T
        do {
            // BEGIN IMMEDIATE: another node's transaction holding the leader's lock is met (and waited for) at the
            // BEGIN, before any of the body's statements ran — until the request's time limit at most: a lock held
            // past it is 503 `SQLITE_BUSY` (nothing ran), not a request that then runs out of time part way.
            value = try writer.transaction(immediate: true, deadline: deadline) { transaction in
                try body(
                    ClusterWriteSession(
                        schema: schema,
                        writer: writer,
                        target: .transaction(transaction),
                        deadline: deadline
                    )
                )
            }
        } catch {
            try? schema.rollbackToSavepoint(savepoint)
            try? schema.releaseSavepoint(savepoint)
            var apiError: APIError
            var outcomeUnknown = false
            if let error = error as? APIError {
                apiError = error
            } else if let error = error as? ClusterError {
                apiError = APIError(cluster: error, isWrite: true)
                outcomeUnknown = error.kind == .outcomeUnknown
            } else {
                apiError = APIError(error, db: nil)
            }
            // A COMMIT whose answer was lost may have been committed.
            if marksRolledBack && !outcomeUnknown { apiError.rolledBack = true }
            throw apiError
        }
        try? schema.releaseSavepoint(savepoint)
        return value
    }

    /// Whether `error` is the cluster's "outcome unknown" answer (503 that may have been committed).
    private static func isOutcomeUnknown(_ error: APIError) -> Bool {
        error.code == "UNAVAILABLE" && error.message.contains("may or may not")
    }
}
