import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /transaction`: all statements or none, on the writer.
    ///
    /// On any failure, including `COMMIT` itself, everything is rolled back and
    /// the body is only the error, with `"rolled_back": true`.
    func transaction(_ body: [UInt8], limits: ServiceLimits, metrics: ServiceMetrics?) throws(APIError) -> HTTPResponse
    {
        let request = try RequestDecoder().decodeTransaction(body)
        guard request.statements.count <= limits.maxStatements else {
            throw .invalidRequest("statements holds more than \(limits.maxStatements) statements")
        }
        var context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: true,
            requiresReadOnly: false
        )
        let output: [UInt8] = try onWriter(metrics: metrics) { db throws(APIError) in
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("results")
            writer.beginArray()
            var index: Int?
            do throws(APIError) {
                try db.withRequestDeadline(context.deadline) { () throws(APIError) in
                    do {
                        try db.beginTransaction(request.mode.engineKind)
                    } catch {
                        throw APIError(error, db: db)
                    }
                    let executor = StatementExecutor(db: db)
                    for (position, statement) in request.statements.enumerated() {
                        index = position
                        try executor.run(statement, context: &context, into: &writer)
                    }
                    index = nil
                    do {
                        try db.commit()
                    } catch {
                        throw APIError(error, db: db)
                    }
                }
            } catch {
                if db.isInTransaction { try? db.rollback() }
                var error = error
                error.statementIndex = index
                error.rolledBack = true
                throw error
            }
            writer.endArray()
            writer.endObject()
            return writer.bytes
        }
        return Self.jsonResponse(output)
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
