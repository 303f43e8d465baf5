/// A validated `POST /query` body: one statement object plus options at the top level.
///
/// `params_batch` is allowed: the read-only statement runs once per set on one snapshot, and the result holds the
/// rows of every run in order, as for `/update`.
public struct QueryRequest: Sendable, Equatable {
    public var statement: StatementRequest
    public var options: RequestOptions

    public init(statement: StatementRequest, options: RequestOptions = RequestOptions()) {
        self.statement = statement
        self.options = options
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /query`'s body (OpenAPI, ``APISchemas``).
    static let queryRequest: [(name: String, json: String)] = [
        (
            "QueryRequest",
            ##"{"allOf": [{"$ref": "#/components/schemas/StatementObject"}, {"$ref": "#/components/schemas/Options"}]}"##
        )
    ]
}
