/// A validated `POST /batch` body.
public struct BatchRequest: Sendable, Equatable {
    /// What the batch runs: exactly one of `statements` and `script`.
    public enum Body: Sendable, Equatable {
        /// `"statements"`: a non-empty list of statement objects.
        case statements([StatementRequest])
        /// `"script"`: several statements without parameters, to be split by SQLite's parser (never contains
        /// U+0000). A script with no statement at all is detected when it is parsed.
        case script(String)
    }

    public var body: Body
    /// `"continue_on_error"` (default `false`): run every statement and report failures in place.
    public var continueOnError: Bool
    public var options: RequestOptions

    public init(body: Body, continueOnError: Bool = false, options: RequestOptions = RequestOptions()) {
        self.body = body
        self.continueOnError = continueOnError
        self.options = options
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /batch`'s body (OpenAPI, ``APISchemas``).
    static let batchRequest: [(name: String, json: String)] = [
        (
            "BatchRequest",
            ##"{"allOf": [{"type": "object", "properties": {"statements": {"type": "array", "items": {"$ref": "#/components/schemas/StatementObject"}}, "script": {"type": "string"}, "continue_on_error": {"type": "boolean"}}}, {"$ref": "#/components/schemas/Options"}]}"##
        )
    ]
}
