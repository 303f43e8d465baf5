/// A validated `POST /transaction` body.
public struct TransactionRequest: Sendable, Equatable {
    /// `"mode"`: how the transaction begins.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    public enum Mode: String, Sendable, Equatable {
        case deferred
        case immediate
        case exclusive

        /// The statement that opens the transaction, such as `BEGIN IMMEDIATE`.
        public var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// `"statements"`: a non-empty list, run in order, all or nothing.
    public var statements: [StatementRequest]
    /// Default `.immediate`, so the write lock is taken up front (no `SQLITE_BUSY_SNAPSHOT` mid-transaction).
    public var mode: Mode
    public var options: RequestOptions

    public init(statements: [StatementRequest], mode: Mode = .immediate, options: RequestOptions = RequestOptions()) {
        self.statements = statements
        self.mode = mode
        self.options = options
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /transaction`'s body (OpenAPI, ``APISchemas``).
    static let transactionRequest: [(name: String, json: String)] = [
        (
            "TransactionRequest",
            ##"{"allOf": [{"type": "object", "required": ["statements"], "properties": {"statements": {"type": "array", "items": {"$ref": "#/components/schemas/StatementObject"}}, "mode": {"type": "string", "enum": ["deferred", "immediate", "exclusive"]}}}, {"$ref": "#/components/schemas/Options"}]}"##
        )
    ]
}
