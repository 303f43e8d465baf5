/// A validated `POST /transactions` body: how the interactive transaction opens.
struct TransactionOpenRequest: Sendable, Equatable {
    /// `"mode"`: how the transaction begins; `read_only` holds one reader's snapshot instead of the writer.
    enum Mode: String, Sendable, Equatable {
        case immediate
        case exclusive
        case deferred
        case readOnly = "read_only"

        /// The `/transaction` mode of a write transaction (nil for `read_only`).
        var writeMode: TransactionRequest.Mode? {
            switch self {
            case .immediate: .immediate
            case .exclusive: .exclusive
            case .deferred: .deferred
            case .readOnly: nil
            }
        }
    }

    /// Default `immediate`.
    var mode: Mode = .immediate
    /// `"idle_timeout_ms"` (≥ 1), nil when not given (the default applies).
    var idleTimeoutMs: Int?
}

/// A validated `POST /transactions/{id}` body: one statement object, or `statements`, with the request options.
struct TransactionStepRequest: Sendable, Equatable {
    /// The statements, in order.
    var statements: [StatementRequest]
    /// Whether the body held `statements` (the answer is then `{"results": [...]}`), not one statement object.
    var isList: Bool
    var options: RequestOptions
}

extension RequestDecoder {
    /// Decodes a `POST /transactions` body: `mode` and `idle_timeout_ms`, both optional; an empty body is `{}`.
    func decodeTransactionOpen(_ body: [UInt8]) throws(APIError) -> TransactionOpenRequest {
        var request = TransactionOpenRequest()
        guard !body.isEmpty else { return request }
        let object = try topLevelObject(body)
        try Self.checkKeys(of: object, allowed: ["mode", "idle_timeout_ms"], context: nil)
        if let value = object["mode"] {
            guard case .string(let text) = value, let mode = TransactionOpenRequest.Mode(rawValue: text) else {
                throw .invalidRequest("\"mode\" must be \"immediate\", \"exclusive\", \"deferred\" or \"read_only\"")
            }
            request.mode = mode
        }
        if let value = object["idle_timeout_ms"] {
            guard case .integer(let milliseconds) = value, milliseconds >= 1 else {
                throw .invalidRequest("\"idle_timeout_ms\" must be an integer >= 1")
            }
            request.idleTimeoutMs = Int(clamping: milliseconds)
        }
        return request
    }

    /// Decodes a `POST /transactions/{id}` body: a statement object, or `{"statements": [...]}`, plus options.
    func decodeTransactionStep(_ body: [UInt8]) throws(APIError) -> TransactionStepRequest {
        let object = try topLevelObject(body)
        if let statements = object["statements"] {
            try Self.checkKeys(of: object, allowed: ["statements"] + Self.optionKeys, context: nil)
            return TransactionStepRequest(
                statements: try Self.decodeStatementList(statements),
                isList: true,
                options: try Self.decodeOptions(object)
            )
        }
        try Self.checkKeys(of: object, allowed: Self.statementBodyKeys, context: nil)
        return TransactionStepRequest(
            statements: [try Self.decodeStatement(object, context: nil)],
            isList: false,
            options: try Self.decodeOptions(object)
        )
    }

    /// Checks that a `commit` or `rollback` body is empty or `{}`.
    func decodeEmptyBody(_ body: [UInt8]) throws(APIError) {
        guard !body.isEmpty else { return }
        let object = try topLevelObject(body)
        try Self.checkKeys(of: object, allowed: [], context: nil)
    }
}

extension APISchemas {
    /// The JSON Schemas of the `/transactions` bodies (OpenAPI, ``APISchemas``).
    static let transactions: [(name: String, json: String)] = [
        (
            "TransactionOpenRequest",
            ##"{"type": "object", "additionalProperties": false, "properties": {"mode": {"type": "string", "enum": ["immediate", "exclusive", "deferred", "read_only"]}, "idle_timeout_ms": {"type": "integer", "minimum": 1}}}"##
        ),
        (
            "TransactionOpened",
            ##"{"type": "object", "required": ["id", "mode", "idle_timeout_ms"], "properties": {"id": {"type": "string"}, "mode": {"type": "string", "enum": ["immediate", "exclusive", "deferred", "read_only"]}, "idle_timeout_ms": {"type": "integer"}}}"##
        ),
        (
            "TransactionStepRequest",
            ##"{"oneOf": [{"$ref": "#/components/schemas/UpdateRequest"}, {"allOf": [{"type": "object", "required": ["statements"], "properties": {"statements": {"type": "array", "items": {"$ref": "#/components/schemas/StatementObject"}}}}, {"$ref": "#/components/schemas/Options"}]}]}"##
        ),
        (
            "TransactionStepResult",
            ##"{"oneOf": [{"$ref": "#/components/schemas/Result"}, {"$ref": "#/components/schemas/TransactionResults"}]}"##
        ),
        (
            "TransactionCommitted",
            ##"{"type": "object", "required": ["committed"], "properties": {"committed": {"type": "boolean", "enum": [true]}}}"##
        ),
        (
            "TransactionRolledBack",
            ##"{"type": "object", "required": ["rolled_back"], "properties": {"rolled_back": {"type": "boolean", "enum": [true]}}}"##
        ),
    ]
}
