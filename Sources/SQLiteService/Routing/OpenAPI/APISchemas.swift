/// The JSON Schemas of the API's bodies, by the names the route table gives them (``Route/requestBody``,
/// ``Route/responseBody``), as `GET /openapi.json` publishes them under `components/schemas`. Each is JSON text
/// (OpenAPI 3.1, JSON Schema 2020-12), checked by `OpenAPIDocumentTests` to parse and to name only schemas defined
/// here.
enum APISchemas {
    /// A reference to the schema `name`.
    static func ref(_ name: String) -> String {
        ##"{"$ref": "#/components/schemas/\##(name)"}"##
    }

    static let all: [(name: String, json: String)] = values + requests + results + tables + operations

    /// Values and the error body, shared by everything. `Value` says "an object is `{"base64": …}`, else a scalar"
    /// with `if`/`then`/`else` rather than a `oneOf` holding `{"type": "null"}`: validators read both alike, and
    /// swift-openapi-generator, which skips a `oneOf` with a null member and reads a list of types as its first,
    /// maps it to its any-value container. Every value of more than one type is written so.
    private static let values: [(name: String, json: String)] = [
        (
            "Value",
            ##"{"description": "A value: null, a boolean (bound as 1 or 0), an integer (exact to 64 bits), a number, a string, or {\"base64\": \"...\"} for a BLOB; in results also \"Infinity\"/\"-Infinity\" and, with int64_as_string, integers as strings.", "if": {"type": "object"}, "then": {"required": ["base64"], "properties": {"base64": {"type": "string"}}, "additionalProperties": false}, "else": {"type": ["null", "boolean", "number", "string"]}}"##
        ),
        (
            "Params",
            ##"{"oneOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Value"}}, {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}]}"##
        ),
        (
            "Error",
            ##"{"type": "object", "required": ["error"], "properties": {"error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        ),
        (
            "ErrorObject",
            ##"{"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "string", "description": "Stable and machine-readable: the SQLite extended result code's name (SQLITE_…) or one of the contract's names."}, "message": {"type": "string"}, "sqlite_code": {"type": "integer"}, "statement_index": {"type": "integer"}, "rolled_back": {"type": "boolean"}, "row_index": {"type": "integer"}}}"##
        ),
    ]

    /// The request bodies of the statement endpoints.
    private static let requests: [(name: String, json: String)] = [
        (
            "StatementObject",
            ##"{"type": "object", "required": ["sql"], "properties": {"sql": {"type": "string"}, "params": {"$ref": "#/components/schemas/Params"}, "params_batch": {"type": "array", "items": {"$ref": "#/components/schemas/Params"}}}}"##
        ),
        (
            "Options",
            ##"{"type": "object", "properties": {"shape": {"type": "string", "enum": ["objects", "arrays"]}, "int64_as_string": {"type": "boolean"}, "max_rows": {"type": "integer", "minimum": 0}, "timeout_ms": {"type": "integer", "minimum": 0}}}"##
        ),
        (
            "QueryRequest",
            ##"{"allOf": [{"$ref": "#/components/schemas/StatementObject"}, {"$ref": "#/components/schemas/Options"}]}"##
        ),
        (
            "UpdateRequest",
            ##"{"allOf": [{"$ref": "#/components/schemas/StatementObject"}, {"$ref": "#/components/schemas/Options"}]}"##
        ),
        (
            "BatchRequest",
            ##"{"allOf": [{"type": "object", "properties": {"statements": {"type": "array", "items": {"$ref": "#/components/schemas/StatementObject"}}, "script": {"type": "string"}, "continue_on_error": {"type": "boolean"}}}, {"$ref": "#/components/schemas/Options"}]}"##
        ),
        (
            "TransactionRequest",
            ##"{"allOf": [{"type": "object", "required": ["statements"], "properties": {"statements": {"type": "array", "items": {"$ref": "#/components/schemas/StatementObject"}}, "mode": {"type": "string", "enum": ["deferred", "immediate", "exclusive"]}}}, {"$ref": "#/components/schemas/Options"}]}"##
        ),
        ("EmptyObject", ##"{"type": "object", "additionalProperties": false}"##),
    ]

    /// The result bodies of the statement endpoints.
    private static let results: [(name: String, json: String)] = [
        (
            "ResultRow",
            ##"{"description": "A row: an object keyed by column name, or an array with shape/_shape arrays.", "oneOf": [{"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}, {"type": "array", "items": {"$ref": "#/components/schemas/Value"}}]}"##
        ),
        (
            "Result",
            ##"{"type": "object", "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "types": {"type": "array", "items": {"type": ["string", "null"]}}, "rows": {"type": "array", "items": {"$ref": "#/components/schemas/ResultRow"}}, "truncated": {"type": "boolean"}, "changes": {"type": "integer"}, "last_insert_rowid": {"description": "An integer; a string of digits with int64_as_string; null when unknown.", "if": {"type": "string"}, "then": {"pattern": "^-?[0-9]+$"}, "else": {"type": ["integer", "null"]}}, "count": {"type": "integer"}}}"##
        ),
        (
            "BatchResults",
            ##"{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/Result"}, {"$ref": "#/components/schemas/Error"}]}}, "error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        ),
        (
            "TransactionResults",
            ##"{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}}}}"##
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

    /// The Tables API's bodies.
    private static let tables: [(name: String, json: String)] = [
        (
            "Column",
            ##"{"type": "object", "required": ["cid", "name", "type", "notnull", "default", "pk"], "properties": {"cid": {"type": "integer"}, "name": {"type": "string"}, "type": {"type": "string"}, "notnull": {"type": "integer"}, "default": {"type": ["string", "null"]}, "pk": {"type": "integer"}}}"##
        ),
        (
            "TableList",
            ##"{"type": "object", "required": ["tables"], "properties": {"tables": {"type": "array", "items": {"type": "object", "required": ["name", "key", "columns"], "properties": {"name": {"type": "string"}, "key": {"type": "array", "items": {"type": "string"}}, "columns": {"type": "array", "items": {"$ref": "#/components/schemas/Column"}}}}}}}"##
        ),
        (
            "RowPage",
            ##"{"type": "object", "required": ["rows", "next"], "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "rows": {"type": "array", "items": {"$ref": "#/components/schemas/ResultRow"}}, "next": {"type": ["string", "null"]}, "prev": {"type": ["string", "null"]}, "count": {"type": "integer"}}}"##
        ),
        (
            "Row",
            ##"{"type": "object", "required": ["row"], "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "row": {"description": "An object, or an array with _shape=arrays.", "if": {"type": "object"}, "else": {"type": "array"}}}}"##
        ),
        ("Count", ##"{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}"##),
        (
            "RowsInsert",
            ##"{"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "minItems": 1, "items": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}}, "on_conflict": {"type": "string", "enum": ["error", "ignore", "update"]}, "int64_as_string": {"type": "boolean"}}}"##
        ),
        (
            "Changes",
            ##"{"type": "object", "required": ["changes"], "properties": {"changes": {"type": "integer"}, "keys": {"type": "array", "items": {"description": "The row's key, or null.", "if": {"type": "object"}, "else": {"type": "null"}}}}}"##
        ),
        (
            "RowPatch",
            ##"{"type": "object", "minProperties": 1, "additionalProperties": {"$ref": "#/components/schemas/Value"}}"##
        ),
        (
            "RowWriteResult",
            ##"{"type": "object", "description": "PATCH: the updated row; DELETE: the number of rows deleted.", "properties": {"row": {"type": "object"}, "changes": {"type": "integer"}}}"##
        ),
    ]

    /// The operational endpoints' bodies.
    private static let operations: [(name: String, json: String)] = [
        (
            "Health",
            ##"{"type": "object", "required": ["status"], "properties": {"status": {"type": "string", "enum": ["ok", "unavailable"]}, "version": {"type": "string"}, "sqlite_version": {"type": "string"}, "error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        ),
        (
            "Schema",
            ##"{"type": "object", "required": ["objects"], "properties": {"objects": {"type": "array", "items": {"type": "object", "required": ["type", "name", "tbl_name", "sql"], "properties": {"type": {"type": "string"}, "name": {"type": "string"}, "tbl_name": {"type": "string"}, "sql": {"type": ["string", "null"]}}}}}}"##
        ),
        (
            "TableSchema",
            ##"{"type": "object", "required": ["name", "columns"], "properties": {"name": {"type": "string"}, "columns": {"type": "array", "items": {"$ref": "#/components/schemas/Column"}}}}"##
        ),
        ("PrometheusText", ##"{"type": "string", "description": "The Prometheus text exposition format 0.0.4."}"##),
        (
            "Backup",
            ##"{"type": "object", "required": ["file", "size"], "properties": {"file": {"type": "string"}, "size": {"type": "integer"}}}"##
        ),
        (
            "Checkpoint",
            ##"{"type": "object", "required": ["mode", "wal_frames", "checkpointed_frames"], "properties": {"mode": {"type": "string"}, "wal_frames": {"type": "integer"}, "checkpointed_frames": {"type": "integer"}}}"##
        ),
        (
            "Vacuum",
            ##"{"type": "object", "required": ["size_before", "size_after", "checkpoint"], "properties": {"size_before": {"type": "integer"}, "size_after": {"type": "integer"}, "checkpoint": {"type": ["object", "null"], "description": "The checkpoint VACUUM ran after itself (WAL mode), else null.", "required": ["mode", "wal_frames", "checkpointed_frames"], "properties": {"mode": {"type": "string"}, "wal_frames": {"type": "integer"}, "checkpointed_frames": {"type": "integer"}}}}}"##
        ),
        (
            "CheckpointRequest",
            ##"{"type": "object", "additionalProperties": false, "properties": {"mode": {"type": "string", "enum": ["passive", "full", "restart", "truncate"]}}}"##
        ),
        (
            "OptimizeRequest",
            ##"{"type": "object", "additionalProperties": false, "properties": {"analyze": {"type": "boolean"}}}"##
        ),
        (
            "Optimize",
            ##"{"type": "object", "required": ["analyzed"], "properties": {"analyzed": {"type": "boolean"}}}"##
        ),
        (
            "ClusterStatus",
            ##"{"type": "object", "required": ["node", "leader", "nodes"], "properties": {"node": {"type": "object"}, "leader": {"description": "The leader, or null while there is none.", "if": {"type": "object"}, "else": {"type": "null"}}, "nodes": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "address": {"type": "string"}, "role": {"type": "string", "enum": ["voter", "standby", "spare"]}, "leader": {"type": "boolean"}}}}}}"##
        ),
        ("OpenAPIDocument", ##"{"type": "object", "description": "This document."}"##),
    ]
}
