import SQLiteEngine

/// One statement object of a request: `{"sql": ..., "params": ... | "params_batch": ...}`, validated.
public struct StatementRequest: Sendable, Equatable {
    /// A parameter bound by name. The key is kept as the client wrote it, with or without its `:`, `@` or `$`
    /// prefix; matching it to the statement's parameters is the binder's job.
    public struct NamedParameter: Sendable, Equatable {
        public var name: String
        public var value: ParameterValue

        public init(name: String, value: ParameterValue) {
            self.name = name
            self.value = value
        }
    }

    /// One set of parameter values: positional (a JSON array) or named (a JSON object, in document order).
    public enum ParameterSet: Sendable, Equatable {
        case positional([ParameterValue])
        case named([NamedParameter])
    }

    /// The statement's parameters.
    public enum Parameters: Sendable, Equatable {
        /// No `params` and no `params_batch`.
        case none
        /// `params` as an array: values for `?` / `?NNN`, in order.
        case positional([ParameterValue])
        /// `params` as an object.
        case named([NamedParameter])
        /// `params_batch`: a non-empty list of sets; the statement runs once per set, in order, atomically.
        case batch([ParameterSet])
    }

    /// The SQL text: one statement (checked when it is prepared, not here). Never contains U+0000.
    public var sql: String
    public var parameters: Parameters

    public init(sql: String, parameters: Parameters = .none) {
        self.sql = sql
        self.parameters = parameters
    }
}

extension StatementRequest.Parameters {
    /// The one set of values of a statement run once (none: no values); nil for `params_batch`.
    var singleSet: StatementRequest.ParameterSet? {
        switch self {
        case .none: .positional([])
        case .positional(let values): .positional(values)
        case .named(let pairs): .named(pairs)
        case .batch: nil
        }
    }
}

extension StatementRequest.ParameterSet {
    /// The values as the engine binds them; `setIndex` names the `params_batch` entry in a bind error.
    func arguments(setIndex: Int? = nil) throws(APIError) -> StatementArguments {
        switch self {
        case .positional(let values): .positional(values.map(\.databaseValue))
        case .named(let pairs): try StatementExecutor.namedArguments(pairs, setIndex: setIndex)
        }
    }
}

extension APISchemas {
    /// The JSON Schema of the statement object (OpenAPI, ``APISchemas``).
    static let statementObject: [(name: String, json: String)] = [
        (
            "StatementObject",
            ##"{"type": "object", "required": ["sql"], "properties": {"sql": {"type": "string"}, "params": {"$ref": "#/components/schemas/Params"}, "params_batch": {"type": "array", "items": {"$ref": "#/components/schemas/Params"}}}}"##
        )
    ]
}
