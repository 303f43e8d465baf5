import DqliteClient
import DqliteCluster
import HTTPServer
import SQLiteEngine

/// The endpoints on the cluster backend: the same decoded requests as on the local backend, run by
/// ``ClusterStatementRunner`` on the leader.
extension SQLiteService {
    /// `POST /update`: one statement on the leader, in autocommit mode.
    func clusterUpdate(
        _ body: [UInt8],
        limits: ServiceLimits,
        cluster: ClusterStorage
    ) throws(APIError) -> HTTPResponse {
        let request = try RequestDecoder().decodeUpdate(body)
        var context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: false
        )
        var writer = JSONWriter()
        try cluster.writeSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
            try ClusterStatementRunner(target: .client(cluster.writer))
                .run(request.statement, on: db, context: &context, into: &writer)
        }
        return Self.jsonResponse(writer.bytes)
    }

    /// `POST /batch`: statements in order, each committing on its own on the leader.
    ///
    /// Unlike the local writer, no other request's statement is kept from running between them on the leader
    /// (other nodes' requests are not serialized with this node's); on this node batches and writes run one at
    /// a time.
    func clusterBatch(
        _ body: [UInt8],
        limits: ServiceLimits,
        cluster: ClusterStorage
    ) throws(APIError) -> HTTPResponse {
        let request = try RequestDecoder().decodeBatch(body)
        if case .statements(let statements) = request.body, statements.count > limits.maxStatements {
            throw .invalidRequest("statements holds more than \(limits.maxStatements) statements")
        }
        var context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: false
        )
        let runner = ClusterStatementRunner(target: .client(cluster.writer))
        let output = try cluster.writeSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
            var run = BatchRun(continueOnError: request.continueOnError)
            do throws(APIError) {
                switch request.body {
                case .statements(let statements):
                    for statement in statements {
                        try run.step { (writer: inout JSONWriter) throws(APIError) in
                            try runner.run(statement, on: db, context: &context, into: &writer)
                        }
                    }
                case .script(let script):
                    // Split and checked statement by statement on the copy of the schema (SQLite's own parser, as
                    // on the local backend), each run on the leader before the next is prepared.
                    try run.runScript(script, on: db) { (statement, writer) throws(APIError) in
                        let plan = try ClusterStatementPlan(scriptStatement: statement, context: context)
                        try runner.run(plan, on: db, context: &context, into: &writer)
                    }
                }
            } catch {
                // A request invalid as a whole (a script with no statement) belongs to no statement.
                if error.code == "INVALID_REQUEST" { throw error }
                run.fail(error)
            }
            return run.finish()
        }
        return output.status == 200
            ? Self.jsonResponse(output.body)
            : Self.jsonResponse(status: output.status, output.body, headers: output.headers)
    }

    /// `POST /transaction`: BEGIN, the statements, COMMIT on one leader connection; on any failure everything is
    /// rolled back and the body is only the error. The `mode` is accepted and has no effect: the leader runs one
    /// write transaction at a time whatever the mode.
    func clusterTransaction(
        _ body: [UInt8],
        limits: ServiceLimits,
        cluster: ClusterStorage
    ) throws(APIError) -> HTTPResponse {
        let (request, context) = try Self.decodeTransaction(body, limits: limits)
        let output = try cluster.writeSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
            // Tried again, from the start, while another node's transaction holds the leader's write lock.
            try BusyRetry.run(until: context.deadline) { () throws(APIError) in
                try Self.clusterTransactionAttempt(request, context: context, on: db, cluster: cluster)
            }
        }
        return Self.jsonResponse(output)
    }

    /// One attempt of a `/transaction`: the body, or the error with its statement index. The DDL it applied to the
    /// copy of the schema is undone when it fails (the leader rolled it back).
    private static func clusterTransactionAttempt(
        _ request: TransactionRequest,
        context: RequestContext,
        on db: Database,
        cluster: ClusterStorage
    ) throws(APIError) -> [UInt8] {
        var context = context
        let savepoint = "sqlited_transaction_attempt"
        do {
            try db.beginSavepoint(savepoint)
        } catch {
            // Without the savepoint a failed attempt's DDL would stay in the copy of the schema.
            throw APIError(error, db: db)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        var index: Int?
        do {
            try cluster.writer.transaction { transaction in
                let runner = ClusterStatementRunner(target: .transaction(transaction))
                for (position, statement) in request.statements.enumerated() {
                    index = position
                    try runner.run(statement, on: db, context: &context, into: &writer)
                }
                index = nil
            }
        } catch {
            try? db.rollbackToSavepoint(savepoint)
            try? db.releaseSavepoint(savepoint)
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
            apiError.statementIndex = index
            // A COMMIT whose answer was lost may have been committed.
            if !outcomeUnknown { apiError.rolledBack = true }
            throw apiError
        }
        try? db.releaseSavepoint(savepoint)
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
