/// A validated `POST /update` body: one statement object plus options at the top level.
public struct UpdateRequest: Sendable, Equatable {
    public var statement: StatementRequest
    public var options: RequestOptions

    public init(statement: StatementRequest, options: RequestOptions = RequestOptions()) {
        self.statement = statement
        self.options = options
    }
}
