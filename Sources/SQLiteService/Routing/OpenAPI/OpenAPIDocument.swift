/// `GET /openapi.json`: an OpenAPI 3.1 document of the API as served, generated from ``RouteTable`` (every path and
/// method, its role, its request and response bodies) and ``APISchemas`` (the bodies' JSON Schemas), so it cannot
/// name a route that is not served or miss one that is. The console's pages (``Route/isInAPIDocument`` false) are
/// not part of the API and are left out.
enum OpenAPIDocument {
    /// The statuses every operation may answer with the error body (the contract's error table).
    static let errorStatuses = ["400", "401", "403", "404", "405", "408", "409", "413", "415", "431", "500", "503"]

    /// The `Idempotency-Key` request header of every write (API.md, Safe retries).
    static let idempotencyKey =
        ##"{"name": "Idempotency-Key", "in": "header", "required": false, "description": "Makes a retry of this write safe: the first request with a key runs and its answer is stored with its changes; the same request again is answered as stored (Idempotent-Replayed: true), 409 IDEMPOTENCY_IN_PROGRESS while the first runs, 422 IDEMPOTENCY_KEY_REUSED for another request under the key (API.md, Safe retries).", "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}}"##

    /// The `Idempotent-Replayed` response header of a write's success response (with its trailing comma).
    static let replayedHeader =
        ##""headers": {"Idempotent-Replayed": {"description": "true when the answer is a stored one, replayed for a retry with the same Idempotency-Key.", "schema": {"type": "string", "enum": ["true"]}}}, "##

    /// What the success response of a streaming route adds to its description.
    static let streamedDescription =
        " With `Accept: application/x-ndjson` or `text/csv` the result is streamed as rows are read "
        + "(API.md, Streaming results); 406 when Accept allows none of the three formats."

    /// The document for a server of `version`.
    static func make(version: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("openapi")
        writer.writeString("3.1.0")
        writer.key("info")
        writer.writeRaw(
            Array(
                ##"{"title": "sqlited", "description": "SQLite over HTTP/JSON (the contract: API.md v1.2).", "version": "\##(version)"}"##
                    .utf8
            )
        )
        writer.key("paths")
        writer.beginObject()
        var written: [ServiceEndpoint] = []
        for route in RouteTable.routes where route.isInAPIDocument && !written.contains(route.endpoint) {
            written.append(route.endpoint)
            writer.key(route.endpoint.label)
            writer.beginObject()
            for sibling in RouteTable.routes where sibling.endpoint == route.endpoint {
                for method in sibling.methods {
                    writer.key(method.lowercased())
                    writeOperation(sibling, method: method, into: &writer)
                }
            }
            writer.endObject()
        }
        writer.endObject()
        writer.key("components")
        writer.beginObject()
        writer.key("securitySchemes")
        writer.writeRaw(Array(##"{"bearerAuth": {"type": "http", "scheme": "bearer"}}"##.utf8))
        writer.key("responses")
        writer.writeRaw(
            Array(
                ##"{"Error": {"description": "The error body of the contract.", "headers": {"Retry-After": {"description": "With 503, and 409 IDEMPOTENCY_IN_PROGRESS: seconds to wait before trying again.", "schema": {"type": "integer"}}, "Allow": {"description": "With 405: the methods the path serves.", "schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}"##
                    .utf8
            )
        )
        writer.key("schemas")
        writer.beginObject()
        for (name, json) in APISchemas.all {
            writer.key(name)
            writer.writeRaw(Array(json.utf8))
        }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private static func writeOperation(_ route: Route, method: String, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("operationId")
        writer.writeString(operationID(route, method: method))
        writer.key("security")
        // Optional (`{}` first): a server without tokens serves every route without one.
        writer.writeRaw(Array((route.role == nil ? "[]" : ##"[{}, {"bearerAuth": []}]"##).utf8))
        if let role = route.role {
            writer.key("description")
            writer.writeString("Needs a token with the `\(role.rawValue)` role when tokens are configured.")
        }
        // A keyed commit (`/transactions/{id}/commit`) is a write under its key too.
        let isWrite = route.makeWrite != nil || route.endpoint == .transactionsCommit
        let parameters = self.parameters(route.endpoint, method: method) + (isWrite ? [idempotencyKey] : [])
        if !parameters.isEmpty {
            writer.key("parameters")
            writer.writeRaw(Array(("[" + parameters.joined(separator: ", ") + "]").utf8))
        }
        if let body = route.requestBody, method == "POST" || method == "PATCH" {
            writer.key("requestBody")
            let optional = ["EmptyObject", "CheckpointRequest", "OptimizeRequest", "TransactionOpenRequest"].contains(
                body
            )
            writer.writeRaw(
                Array(
                    ##"{"required": \##(!optional), "content": {"application/json": {"schema": \##(APISchemas.ref(body))}}}"##
                        .utf8
                )
            )
        }
        writer.key("responses")
        writer.beginObject()
        writer.key(String(route.successStatus))
        let mediaType = route.responseBody == "PrometheusText" ? "text/plain" : "application/json"
        // A route that streams (GET's routes serve HEAD too, but a streamed list is a GET) lists its formats.
        let streamed =
            route.streamsResults
            ? ##", "application/x-ndjson": {"schema": \##(APISchemas.ref("NDJSONStream"))}, "text/csv": {"schema": \##(APISchemas.ref("CSVStream"))}"##
            : ""
        writer.writeRaw(
            Array(
                ##"{"description": "Success.\##(route.streamsResults ? Self.streamedDescription : "")", \##(isWrite ? replayedHeader : "")"content": {"\##(mediaType)": {"schema": \##(APISchemas.ref(route.responseBody))}\##(streamed)}}"##
                    .utf8
            )
        )
        for status in errorStatuses + (route.streamsResults ? ["406"] : []) + (isWrite ? ["422"] : []) {
            writer.key(status)
            writer.writeRaw(Array(##"{"$ref": "#/components/responses/Error"}"##.utf8))
        }
        writer.endObject()
        writer.endObject()
    }

    /// `getTablesTableRows`, `postQuery`, …: the method and the path's words.
    private static func operationID(_ route: Route, method: String) -> String {
        let words = route.endpoint.label.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map {
            $0.prefix(1).uppercased() + $0.dropFirst()
        }
        return method.lowercased() + words.joined()
    }

    /// The path and query parameters of `endpoint` for `method`.
    private static func parameters(_ endpoint: ServiceEndpoint, method: String) -> [String] {
        func path(_ name: String) -> String {
            ##"{"name": "\##(name)", "in": "path", "required": true, "schema": {"type": "string"}}"##
        }
        func query(_ name: String, _ schema: String) -> String {
            ##"{"name": "\##(name)", "in": "query", "required": false, "schema": \##(schema)}"##
        }
        let filters =
            ##"{"name": "filters", "in": "query", "required": false, "style": "form", "explode": true, "description": "col=v, col__ne, col__lt, col__lte, col__gt, col__gte, col__isnull (API.md, Tables).", "schema": {"type": "object", "additionalProperties": {"type": "string"}}}"##
        let flag = ##"{"type": "string", "enum": ["true", "false"]}"##
        let shape = query("_shape", ##"{"type": "string", "enum": ["objects", "arrays"]}"##)
        let rowOptions = [query("_columns", ##"{"type": "string"}"##), shape, query("_int64_as_string", flag)]
        switch (endpoint, method) {
        case (.schemaTable, _):
            return [path("table")]
        case (.tablesRows, "GET"):
            return [path("table"), filters, query("_limit", ##"{"type": "integer", "minimum": 0}"##)]
                + [query("_order", ##"{"type": "string"}"##), query("_after", ##"{"type": "string"}"##)]
                + [query("_before", ##"{"type": "string"}"##), query("_count", flag)] + rowOptions
        case (.tablesRows, "DELETE"), (.tablesCount, _):
            return [path("table"), filters]
        case (.tablesRows, _):
            return [path("table")]
        case (.tablesRow, "GET"):
            return [path("table"), path("key")] + rowOptions
        case (.tablesRow, _):
            return [path("table"), path("key")]
        case (.transactionsItem, _), (.transactionsCommit, _), (.transactionsRollback, _):
            return [path("id")]
        default:
            return []
        }
    }
}
