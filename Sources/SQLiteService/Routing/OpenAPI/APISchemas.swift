/// The JSON Schemas of the API's bodies, by the names the route table gives them (``Route/requestBody``,
/// ``Route/responseBody``), as `GET /openapi.json` publishes them under `components/schemas`. Each is JSON text
/// (OpenAPI 3.1, JSON Schema 2020-12) declared beside the code that reads or writes that body, checked by
/// `OpenAPIDocumentTests` to parse, to be named once, and to name only schemas that exist.
///
/// A value of more than one JSON type (a column's value, `last_insert_rowid`, a Tables row in either shape) is
/// written with `if`/`then`/`else` rather than a `oneOf` holding `{"type": "null"}` or a list of types: validators
/// read them alike, and swift-openapi-generator, which skips such a `oneOf` and reads a list of types as its first,
/// maps it to its any-value container.
enum APISchemas {
    /// A reference to the schema `name`.
    static func ref(_ name: String) -> String {
        ##"{"$ref": "#/components/schemas/\##(name)"}"##
    }

    /// Every schema, in the document's order: each declared beside the code that reads or writes that body (an
    /// `extension APISchemas` at the end of its file), the document's own here.
    static let all: [(name: String, json: String)] = [
        parameterValues, errorBody, statementObject, requestOptions, queryRequest, updateRequest, batchRequest,
        transactionRequest, transactions, queryResults, batchResults, transactionResults, tablesReads, tablesWrites,
        health, schema,
        metricsText, backup, maintenance, clusterStatus, document,
    ].flatMap { $0 }

    /// Schemas of the document itself.
    private static let document: [(name: String, json: String)] = [
        ("EmptyObject", ##"{"type": "object", "additionalProperties": false}"##),
        ("OpenAPIDocument", ##"{"type": "object", "description": "This document."}"##),
    ]
}
