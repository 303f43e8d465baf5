import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /batch`: statements in order, each committing on its own: on the local writer with no other request's
    /// statement in between (inside a group each in a savepoint of its own, so a failing statement undoes only
    /// itself); on a cluster other nodes' statements may run between them on the leader.
    func batch(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> StorageWrite {
        let request = try RequestDecoder().decodeBatch(body)
        if case .statements(let statements) = request.body, statements.count > limits.maxStatements {
            throw .invalidRequest("statements holds more than \(limits.maxStatements) statements")
        }
        let context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: false
        )
        // Each statement commits on its own in autocommit mode: alone in a group, a batch still takes the group's
        // transaction (one fsync for all its statements).
        return StorageWrite(deadline: context.deadline, bytes: body.count, isOneTransaction: false) {
            (session: any WriteSession) throws(APIError) -> WriteAnswer in
            // A copy per run: the body may run again (see StorageWrite).
            var context = context
            var run = BatchRun(continueOnError: request.continueOnError)
            do throws(APIError) {
                switch request.body {
                case .statements(let statements):
                    for statement in statements {
                        try run.step { (writer: inout JSONWriter) throws(APIError) in
                            try session.alone { () throws(APIError) in
                                try session.runWhole(sql: statement.sql) { (session) throws(APIError) in
                                    try session.run(statement, context: &context, into: &writer)
                                }
                            }
                        }
                        try session.afterBatchStep(run)
                    }
                case .script(let script):
                    try run.runScript(
                        script,
                        on: session.schema,
                        execute: { (statement, writer) throws(APIError) in
                            try session.alone { () throws(APIError) in
                                try session.runWhole(sql: statement.sql) { (session) throws(APIError) in
                                    try session.run(scriptStatement: statement, context: &context, into: &writer)
                                }
                            }
                        },
                        afterEach: { (run) throws(APIError) in try session.afterBatchStep(run) }
                    )
                }
            } catch {
                if let whole = session.batchFailedAsAWhole(error) { throw whole }
                // A request that is invalid as a whole (a script with no statement) belongs to no statement: no
                // index, no results, even with continue_on_error.
                if error.code == "INVALID_REQUEST" { throw error }
                // A failure outside any one statement (the time limit between statements, a broken connection)
                // stops the batch at the next index.
                run.fail(error)
            }
            let output = run.finish()
            let response =
                output.status == 200
                ? Self.jsonResponse(output.body)
                : Self.jsonResponse(status: output.status, output.body, headers: output.headers)
            // A batch that stopped keeps the statements that ran before (an Idempotency-Key stores its answer).
            return WriteAnswer(response: response, keepsChanges: output.status == 200 || run.succeeded > 0)
        }
    }
}

/// The results of a `/batch` as they accumulate, and how it ends.
struct BatchRun {
    let continueOnError: Bool
    private var results = JSONWriter()
    private var count = 0
    private var failure: APIError?
    /// The latest statement error, recorded or ending the batch.
    private var lastError: APIError?
    /// True once a failure ended the batch.
    private(set) var stopped = false
    /// How many statements succeeded (their changes stay).
    private(set) var succeeded = 0

    init(continueOnError: Bool) {
        self.continueOnError = continueOnError
        results.beginArray()
    }

    /// Runs the next statement, recording its result or error.
    mutating func step(_ body: (inout JSONWriter) throws(APIError) -> Void) throws(APIError) {
        guard !stopped else { return }
        let index = count
        count += 1
        do {
            var writer = JSONWriter()
            try body(&writer)
            results.writeRaw(writer.bytes)
            succeeded += 1
        } catch {
            var error = error
            error.statementIndex = index
            error.rolledBack = false
            record(error)
        }
    }

    /// Throws the latest statement error when, inside a group, it made SQLite roll back the group's transaction
    /// (an interrupted write, a full disk): the batch's earlier statements are undone with it, so the batch must
    /// stop and fail as a whole (the group runs the other requests again).
    func checkGroupTransaction(grouped: Bool, db: Database) throws(APIError) {
        guard grouped, !db.isInTransaction else { return }
        throw lastError ?? .transactionLost
    }

    /// Records a failure that belongs to no single statement.
    mutating func fail(_ error: APIError) {
        guard !stopped else { return }
        var error = error
        if error.statementIndex == nil {
            error.statementIndex = count
            error.rolledBack = false
        }
        record(error)
    }

    private mutating func record(_ error: APIError) {
        lastError = error
        if continueOnError {
            var writer = JSONWriter()
            error.writeBody(to: &writer)
            results.writeRaw(writer.bytes)
        } else {
            failure = error
            stopped = true
        }
    }

    /// The response: `{"results": [...]}` plus `error` when the batch stopped on one.
    func finish() -> (status: Int, body: [UInt8], headers: [(name: String, value: String)]) {
        var results = self.results
        results.endArray()
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("results")
        writer.writeRaw(results.bytes)
        guard let failure else {
            writer.endObject()
            return (200, writer.bytes, [])
        }
        writer.key("error")
        failure.write(to: &writer)
        writer.endObject()
        return (failure.status, writer.bytes, failure.headers)
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /batch`'s answer (OpenAPI, ``APISchemas``).
    static let batchResults: [(name: String, json: String)] = [
        (
            "BatchResults",
            ##"{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/Result"}, {"$ref": "#/components/schemas/Error"}]}}, "error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        )
    ]
}
