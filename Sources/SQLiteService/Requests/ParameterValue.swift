/// A validated parameter value, ready to bind.
///
/// JSON values map as the contract's Values table says: `null` → NULL, `true`/`false` → INTEGER 1/0, an integral
/// number within `Int64` → INTEGER (exact), any other number → REAL, a string → TEXT, `{"base64": "..."}` → BLOB
/// (already decoded, `""` being a zero-length blob).
public enum ParameterValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension APISchemas {
    /// The JSON Schemas of a bound value and of `params` (OpenAPI, ``APISchemas``).
    static let parameterValues: [(name: String, json: String)] = [
        (
            "Value",
            ##"{"description": "A value: null, a boolean (bound as 1 or 0), an integer (exact to 64 bits), a number, a string, or {\"base64\": \"...\"} for a BLOB; in results also \"Infinity\"/\"-Infinity\" and, with int64_as_string, integers as strings.", "if": {"type": "object"}, "then": {"required": ["base64"], "properties": {"base64": {"type": "string"}}, "additionalProperties": false}, "else": {"type": ["null", "boolean", "number", "string"]}}"##
        ),
        (
            "Params",
            ##"{"oneOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Value"}}, {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}]}"##
        ),
    ]
}
