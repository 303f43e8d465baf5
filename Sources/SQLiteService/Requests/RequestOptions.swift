/// The options any POST body may carry at its top level.
///
/// The values are the client's; capping `maxRows` and `timeoutMs` by the server's limits happens in the service.
public struct RequestOptions: Sendable, Equatable {
    /// How rows are written in results.
    public enum Shape: String, Sendable, Equatable {
        /// Each row is an object keyed by column name (the default).
        case objects
        /// Each row is an array in column order.
        case arrays
    }

    /// `"shape"`: `"objects"` (default) or `"arrays"`.
    public var shape: Shape
    /// `"int64_as_string"`: integers outside ±(2^53 − 1) are written as decimal strings.
    public var int64AsString: Bool
    /// `"max_rows"` (≥ 0): the most rows the client wants per result; `nil` when not given.
    public var maxRows: Int?
    /// `"timeout_ms"` (≥ 1): the client's time limit for the whole request; `nil` when not given.
    public var timeoutMs: Int?

    public init(shape: Shape = .objects, int64AsString: Bool = false, maxRows: Int? = nil, timeoutMs: Int? = nil) {
        self.shape = shape
        self.int64AsString = int64AsString
        self.maxRows = maxRows
        self.timeoutMs = timeoutMs
    }
}

extension APISchemas {
    /// The JSON Schema of the request options (OpenAPI, ``APISchemas``).
    static let requestOptions: [(name: String, json: String)] = [
        (
            "Options",
            ##"{"type": "object", "properties": {"shape": {"type": "string", "enum": ["objects", "arrays"]}, "int64_as_string": {"type": "boolean"}, "max_rows": {"type": "integer", "minimum": 0}, "timeout_ms": {"type": "integer", "minimum": 0}}}"##
        )
    ]
}
