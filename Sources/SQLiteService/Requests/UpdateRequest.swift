/// A validated `POST /update` body: one statement object plus options at the top level.
public struct UpdateRequest: Sendable, Equatable {
    public var statement: StatementRequest
    public var options: RequestOptions

    public init(statement: StatementRequest, options: RequestOptions = RequestOptions()) {
        self.statement = statement
        self.options = options
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /update`'s body (OpenAPI, ``APISchemas``).
    static let updateRequest: [(name: String, json: String)] = [
        (
            "UpdateRequest",
            ##"{"allOf": [{"$ref": "#/components/schemas/StatementObject"}, {"$ref": "#/components/schemas/Options"}]}"##
        )
    ]
}
