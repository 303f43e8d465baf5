import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /query` on a handler thread: one read-only statement, on a reader or on the cluster's leader.
    /// The result is JSON, or streamed when `Accept` asks for NDJSON or CSV (``streamedResponse``).
    func queryResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        let format = try Self.resultFormat(of: request)
        var (query, context) = try Self.decodeQuery(request.body, limits: settings.limits)
        guard format == .json else {
            if case .batch = query.statement.parameters {
                throw .invalidRequest("a streamed /query takes no params_batch: send each set as its own /query")
            }
            let streaming = RequestContext(streaming: query.options, limits: settings.limits)
            return streamedResponse(format, statement: query.statement, context: streaming, settings: settings)
        }
        return Self.jsonResponse(try store.query(query, context: &context, metrics: settings.options.metrics))
    }

    /// `POST /query` on the cluster, taken on the event loop: checked (``resolve(_:_:settings:tokenName:match:)``)
    /// and decoded here, queued for the next batch of reads (``ClusterStorage/queueRead(_:context:answer:)``), and
    /// answered through `finish` by the worker that ran its batch. For a JSON result only: a streamed one is a
    /// handler thread's (``queryResponse(_:_:)``, with the same answers).
    func queueClusterQuery(
        _ request: HTTPRequest,
        _ endpoint: ServiceEndpoint,
        _ match: RouteTable.Match,
        settings: ServiceSettings,
        on cluster: ClusterStorage,
        finish: @escaping @Sendable (ServiceResponse) -> Void
    ) {
        var tokenName: String?
        let query: QueryRequest
        let context: RequestContext
        do throws(APIError) {
            _ = try resolve(request, endpoint, settings: settings, tokenName: &tokenName, match: match)
            (query, context) = try Self.decodeQuery(request.body, limits: settings.limits)
        } catch {
            finish(failure(error, answering: request, tokenName: tokenName))
            return
        }
        cluster.queueRead(query, context: context) { [tokenName] result in
            switch result {
            case .success(let bytes):
                finish(ServiceResponse(response: Self.jsonResponse(bytes), tokenName: tokenName))
            case .failure(let error):
                finish(self.failure(error, answering: request, tokenName: tokenName))
            }
        }
    }

    /// Runs `/query`'s statement on the reader `db` until `deadline` (the request's, or the event loop's budget):
    /// its result object. The one run of the statement for both paths of `/query` on the local storage.
    static func runQuery(
        _ request: QueryRequest,
        context: inout RequestContext,
        on db: Database,
        until deadline: ContinuousClock.Instant
    ) throws(APIError) -> [UInt8] {
        var writer = JSONWriter()
        try db.withRequestDeadline(deadline) { () throws(APIError) in
            try StatementExecutor(db: db).run(request.statement, context: &context, into: &writer)
        }
        return writer.bytes
    }

    /// A `/query` body decoded, with the context its statement runs in (read-only, no savepoints).
    static func decodeQuery(
        _ body: [UInt8],
        limits: ServiceLimits
    ) throws(APIError) -> (QueryRequest, RequestContext) {
        let request = try RequestDecoder().decodeQuery(body)
        let context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: true
        )
        return (request, context)
    }

    /// How a `/query` reads: a statement run once is its own read transaction (one statement, one snapshot, so no
    /// `BEGIN`/`COMMIT` is needed); a `params_batch` runs the statement several times, which must all see one
    /// snapshot, so it reads in a transaction.
    static func isolation(of request: QueryRequest) -> DatabasePool.ReadIsolation {
        if case .batch = request.statement.parameters {
            return .snapshot
        }
        return .statement
    }
}

extension APISchemas {
    /// The JSON Schemas of a statement's result and its streamed forms (OpenAPI, ``APISchemas``).
    static let queryResults: [(name: String, json: String)] = [
        (
            "ResultRow",
            ##"{"description": "A row: an object keyed by column name, or an array with shape/_shape arrays.", "oneOf": [{"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}, {"type": "array", "items": {"$ref": "#/components/schemas/Value"}}]}"##
        ),
        (
            "Result",
            ##"{"type": "object", "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "types": {"type": "array", "items": {"type": ["string", "null"]}}, "rows": {"type": "array", "items": {"$ref": "#/components/schemas/ResultRow"}}, "truncated": {"type": "boolean"}, "changes": {"type": "integer"}, "last_insert_rowid": {"description": "An integer; a string of digits with int64_as_string; null when unknown.", "if": {"type": "string"}, "then": {"pattern": "^-?[0-9]+$"}, "else": {"type": ["integer", "null"]}}, "count": {"type": "integer"}}}"##
        ),
        (
            "NDJSONStream",
            ##"{"type": "string", "description": "application/x-ndjson: a line {\"columns\": [...], \"types\": [...]}, a line per row (an object or an array, as shape says), then {\"rows\": n}, or {\"error\": {...}} when the statement failed after the first line."}"##
        ),
        (
            "CSVStream",
            ##"{"type": "string", "description": "text/csv; charset=utf-8; header=present (RFC 4180): a header record, a record per row, CRLF after each; NULL an empty unquoted field, empty text \"\", a BLOB in base64. An error after the first byte cuts the response."}"##
        ),
    ]
}
