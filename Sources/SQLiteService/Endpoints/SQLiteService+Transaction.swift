import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /transaction`: all statements or none (``WriteSession/atomically(mode:marksRolledBack:_:)``).
    ///
    /// On any failure, including `COMMIT` itself, everything is rolled back and the body is only the error, with
    /// `"rolled_back": true` (not when a cluster's COMMIT answer was lost: the outcome is unknown). Inside a group
    /// (group commit) the transaction is the request's savepoint in the group's `BEGIN IMMEDIATE` transaction,
    /// whatever its mode; its end checks deferred foreign keys as its `COMMIT` would have. On a cluster the mode has
    /// no effect: the leader runs one write transaction at a time.
    func transaction(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> StorageWrite {
        let (request, context) = try Self.decodeTransaction(body, limits: limits)
        return StorageWrite(deadline: context.deadline, bytes: body.count) { session throws(APIError) in
            let output = try session.atomically(mode: request.mode, marksRolledBack: true) {
                session throws(APIError) in
                // A copy per attempt: the body may run again (see StorageWrite).
                var context = context
                return try session.runStatements(request.statements, asList: true, context: &context)
            }
            return Self.jsonResponse(output)
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

extension APISchemas {
    /// The JSON Schema of `POST /transaction`'s answer (OpenAPI, ``APISchemas``).
    static let transactionResults: [(name: String, json: String)] = [
        (
            "TransactionResults",
            ##"{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}}}}"##
        )
    ]
}
