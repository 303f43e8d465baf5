import SQLiteEngine

/// A write request's statements on the local writer, in autocommit mode or inside a group (``GroupCommitter``:
/// the group's transaction is open, the request in a savepoint of its own).
struct LocalWriteSession: WriteSession {
    let db: Database
    /// Whether the request runs inside a group's transaction.
    let grouped: Bool

    init(_ db: Database) {
        self.db = db
        grouped = db.isInTransaction
    }

    var schema: Database { db }

    var records: any RecordStatementRunner { db }

    func run(_ statement: StatementRequest, context: inout RequestContext, into out: inout JSONWriter) throws(APIError)
    {
        try StatementExecutor(db: db).run(statement, context: &context, into: &out)
    }

    func run(scriptStatement: Statement, context: inout RequestContext, into out: inout JSONWriter) throws(APIError) {
        try StatementExecutor(db: db).run(scriptStatement: scriptStatement, context: &context, into: &out)
    }

    func alone<T>(_ body: () throws(APIError) -> T) throws(APIError) -> T {
        try db.committingAlone(body)
    }

    /// From the writer's statement cache under a text no client can send (``SQLPolicy/serverStatementTag``, a
    /// random part of this process's): a client's identical statement is another cache entry, prepared under the
    /// clients' policy.
    func serverStatement(_ sql: ServerSQL, _ arguments: [DatabaseValue]) throws(APIError) -> [[DatabaseValue]] {
        do {
            return try SQLPolicy.asServer(db) {
                let statement = try db.cachedStatement(sql: sql.tagged)
                defer { statement.reset() }
                try statement.bind(.positional(arguments))
                var rows: [[DatabaseValue]] = []
                while try statement.step() {
                    rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
                }
                return rows
            }
        } catch {
            throw APIError(error, db: db)
        }
    }

    func afterBatchStep(_ run: BatchRun) throws(APIError) {
        try run.checkGroupTransaction(grouped: grouped, db: db)
    }

    /// The group's transaction was rolled back with this batch's statements: the batch fails as a whole.
    func batchFailedAsAWhole(_ error: APIError) -> APIError? {
        guard grouped, !db.isInTransaction else { return nil }
        var error = error
        error.rolledBack = true
        return error
    }

    /// Inside a group, in the request's own savepoint as it is: a second savepoint around the same work cost a
    /// keyed write two more statements.
    func wholeRequest<T>(
        retrying retry: (APIError) -> Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard grouped else { return try inOwnTransaction(retrying: retry, body) }
        return try body(self)
    }

    func atomically<T>(
        mode: TransactionRequest.Mode?,
        marksRolledBack: Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        do throws(APIError) {
            if grouped {
                // The request's savepoint in the group's transaction, whatever the mode; its end checks the deferred
                // foreign keys as a COMMIT would have.
                return try SQLiteService.mapped(db) {
                    try db.inSavepoint { _ throws in
                        let value = try body(self)
                        if db.hasDeferredForeignKeyViolations { throw APIError.deferredForeignKeyViolation }
                        return value
                    }
                }
            }
            do {
                try db.beginTransaction((mode ?? .deferred).engineKind)
            } catch {
                throw APIError(error, db: db)
            }
            // Inside the transaction now: a nested atomic unit takes a savepoint, and a `/batch` checks it is still open.
            let value = try body(LocalWriteSession(db))
            do {
                try db.commit()
            } catch {
                throw APIError(error, db: db)
            }
            return value
        } catch {
            if !grouped, db.isInTransaction { try? db.rollback() }
            var error = error
            if marksRolledBack { error.rolledBack = true }
            throw error
        }
    }
}
