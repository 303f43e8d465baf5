/// Turns request bodies into validated requests, following the API contract exactly.
///
/// A request is validated as a whole before anything runs: every key, type, option and parameter value of every
/// statement is checked, and blobs are decoded, so a bad statement object at index 5 rejects the request before
/// statement 0 runs. Errors:
/// - `INVALID_JSON`: the body is not one strict JSON document (see ``JSONParser``).
/// - `INVALID_REQUEST`: the wrong shape — the top level is not an object, a key is unknown or missing, a value has
///   the wrong type or is out of range, `params` with `params_batch`, an empty list, `sql`/`script` containing
///   U+0000 (SQLite would silently stop reading at it). An explicit `null` counts as the wrong type; leave the key
///   out instead. Messages locate the problem (`statements[5]: ...`) and name keys, never values.
/// - `BIND_ERROR`: a parameter value that cannot be bound (an array, an object other than `{"base64": "..."}`,
///   invalid base64). The message names the parameter: `parameter 2` (1-based, as SQLite numbers `?NNN`) or
///   `parameter :id` (the key as written, `:` added when it has no prefix).
///
/// Validation errors carry no `statement_index`: nothing has run, so nothing failed at an index.
public struct RequestDecoder: Sendable {
    /// The JSON parser, with its nesting limit.
    public var parser: JSONParser

    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        parser = JSONParser(maxDepth: maxDepth)
    }

    static let statementKeys = ["sql", "params", "params_batch"]
    static let optionKeys = ["shape", "int64_as_string", "max_rows", "timeout_ms"]
    /// The keys of a `/query` or `/update` body (built once: every request checks against it).
    static let statementBodyKeys = statementKeys + optionKeys

    /// Decodes a `POST /query` body: a statement object plus options.
    public func decodeQuery(_ body: [UInt8]) throws(APIError) -> QueryRequest {
        if let statement = SimpleStatementBody.decode(body) { return QueryRequest(statement: statement) }
        return try decodeQueryInGeneral(body)
    }

    /// `decodeQuery` without its one-pass path for the common body (the tests compare the two).
    func decodeQueryInGeneral(_ body: [UInt8]) throws(APIError) -> QueryRequest {
        let (statement, options) = try decodeStatementBody(body)
        return QueryRequest(statement: statement, options: options)
    }

    /// Decodes a `POST /update` body: a statement object plus options.
    public func decodeUpdate(_ body: [UInt8]) throws(APIError) -> UpdateRequest {
        if let statement = SimpleStatementBody.decode(body) { return UpdateRequest(statement: statement) }
        let (statement, options) = try decodeStatementBody(body)
        return UpdateRequest(statement: statement, options: options)
    }

    /// The statement and options of a `/query` or `/update` body, by the general path (every key checked).
    private func decodeStatementBody(_ body: [UInt8]) throws(APIError) -> (StatementRequest, RequestOptions) {
        let object = try topLevelObject(body)
        try Self.checkKeys(of: object, allowed: Self.statementBodyKeys, context: nil)
        return (try Self.decodeStatement(object, context: nil), try Self.decodeOptions(object))
    }

    /// Decodes a `POST /batch` body: `statements` or `script`, `continue_on_error`, options.
    public func decodeBatch(_ body: [UInt8]) throws(APIError) -> BatchRequest {
        let object = try topLevelObject(body)
        try Self.checkKeys(
            of: object,
            allowed: ["statements", "script", "continue_on_error"] + Self.optionKeys,
            context: nil
        )
        let batchBody: BatchRequest.Body
        switch (object["statements"], object["script"]) {
        case (_?, _?):
            throw .invalidRequest("\"statements\" and \"script\" cannot be used together")
        case (nil, nil):
            throw .invalidRequest("missing \"statements\" or \"script\"")
        case (let statements?, nil):
            batchBody = .statements(try Self.decodeStatementList(statements))
        case (nil, let script?):
            guard case .string(let text) = script else {
                throw .invalidRequest("\"script\" must be a string, not \(script.typeName)")
            }
            guard !Self.containsNUL(text) else { throw .invalidRequest("\"script\" must not contain U+0000") }
            batchBody = .script(text)
        }
        var continueOnError = false
        if let value = object["continue_on_error"] {
            guard case .bool(let flag) = value else {
                throw .invalidRequest("\"continue_on_error\" must be a boolean, not \(value.typeName)")
            }
            continueOnError = flag
        }
        return BatchRequest(body: batchBody, continueOnError: continueOnError, options: try Self.decodeOptions(object))
    }

    /// Decodes a `POST /transaction` body: `statements`, `mode`, options.
    public func decodeTransaction(_ body: [UInt8]) throws(APIError) -> TransactionRequest {
        let object = try topLevelObject(body)
        try Self.checkKeys(of: object, allowed: ["statements", "mode"] + Self.optionKeys, context: nil)
        guard let statements = object["statements"] else { throw .invalidRequest("missing \"statements\"") }
        let list = try Self.decodeStatementList(statements)
        var mode = TransactionRequest.Mode.immediate
        if let value = object["mode"] {
            guard case .string(let text) = value, let parsed = TransactionRequest.Mode(rawValue: text) else {
                throw .invalidRequest("\"mode\" must be \"deferred\", \"immediate\" or \"exclusive\"")
            }
            mode = parsed
        }
        return TransactionRequest(statements: list, mode: mode, options: try Self.decodeOptions(object))
    }

    /// Parses the body and requires a JSON object at the top level.
    func topLevelObject(_ body: [UInt8]) throws(APIError) -> JSONObject {
        let value: JSONValue
        do {
            value = try parser.parse(body)
        } catch {
            throw .invalidJSON(error)
        }
        guard case .object(let object) = value else {
            throw .invalidRequest("the request body must be a JSON object, not \(value.typeName)")
        }
        return object
    }

    /// Refuses any key not in `allowed`.
    static func checkKeys(of object: JSONObject, allowed: [String], context: String?) throws(APIError) {
        for member in object.members where !allowed.contains(member.key) {
            let list = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            throw .invalidRequest(
                located("unknown key \(quotedForMessage(member.key)) (allowed: \(list))", in: context)
            )
        }
    }

    /// `"statements[3]: message"`, or the message alone at the top level.
    static func located(_ message: String, in context: String?) -> String {
        guard let context else { return message }
        return "\(context): \(message)"
    }

    /// A client-supplied key, quoted and cut short, so an error message stays small.
    static func quotedForMessage(_ key: String) -> String {
        "\"\(shortenedForMessage(key))\""
    }

    /// A client-supplied key cut to 64 characters.
    static func shortenedForMessage(_ key: String) -> String {
        let limit = 64
        return key.count > limit ? key.prefix(limit) + "…" : key
    }
}
