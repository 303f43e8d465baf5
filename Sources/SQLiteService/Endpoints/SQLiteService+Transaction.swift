import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /transaction`: all statements or none, on the writer.
    ///
    /// On any failure, including `COMMIT` itself, everything is rolled back and
    /// the body is only the error, with `"rolled_back": true`.
    ///
    /// Inside a group (group commit) the transaction is the request's savepoint in the group's `BEGIN IMMEDIATE`
    /// transaction, whatever its mode; its end checks deferred foreign keys as its `COMMIT` would have.
    func transaction(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> PreparedWrite {
        let (request, context) = try Self.decodeTransaction(body, limits: limits)
        return PreparedWrite(deadline: context.deadline, bytes: body.count) { db throws(APIError) in
            // A copy per run: group commit may run the body again (see GroupCommitter).
            var context = context
            let grouped = db.isInTransaction
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("results")
            writer.beginArray()
            var index: Int?
            do throws(APIError) {
                try db.withRequestDeadline(context.deadline) { () throws(APIError) in
                    do {
                        if !grouped { try db.beginTransaction(request.mode.engineKind) }
                    } catch {
                        throw APIError(error, db: db)
                    }
                    let executor = StatementExecutor(db: db)
                    for (position, statement) in request.statements.enumerated() {
                        index = position
                        try executor.run(statement, context: &context, into: &writer)
                    }
                    index = nil
                    if grouped {
                        if db.hasDeferredForeignKeyViolations { throw APIError.deferredForeignKeyViolation }
                        return
                    }
                    do {
                        try db.commit()
                    } catch {
                        throw APIError(error, db: db)
                    }
                }
            } catch {
                // In a group, the request's savepoint is rolled back by committingAlone.
                if !grouped, db.isInTransaction { try? db.rollback() }
                var error = error
                error.statementIndex = index
                error.rolledBack = true
                throw error
            }
            writer.endArray()
            writer.endObject()
            return Self.jsonResponse(writer.bytes)
        }
    }

    /// A `/transaction` body, its statement count checked, and the context its statements run in (writes and
    /// savepoints allowed), as both backends take it.
    static func decodeTransaction(
        _ body: [UInt8],
        limits: ServiceLimits
    ) throws(APIError) -> (TransactionRequest, RequestContext) {
        let request = try RequestDecoder().decodeTransaction(body)
        guard request.statements.count <= limits.maxStatements else {
            throw .invalidRequest("statements holds more than \(limits.maxStatements) statements")
        }
        let context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: true,
            requiresReadOnly: false
        )
        return (request, context)
    }
}

extension TransactionRequest.Mode {
    var engineKind: Database.TransactionKind {
        switch self {
        case .deferred: .deferred
        case .immediate: .immediate
        case .exclusive: .exclusive
        }
    }
}
