public import Foundation
public import OpenAPIRuntime
import OpenAPIURLSession
@_exported public import SQLitedOpenAPI

/// A client of sqlited: the generated ``Client`` (every operation and documented status of the server's OpenAPI
/// document) and, over it, the few calls a backend makes most, with rows decoded to your `Decodable` types.
///
/// Every request sends the bearer token when one is given; every write gets an `Idempotency-Key` (one per call,
/// the same on its retries); an answer of 503 with `Retry-After` is retried as ``RetryPolicy`` says (a write only
/// with its key). The methods here throw ``SQLitedError`` for any answer other than success.
public struct SQLitedClient: Sendable {
    /// The generated client, with the token, the keys and the retries: its outputs name every documented status.
    public let generated: Client
    /// The same, with every non-2xx answer thrown as ``SQLitedError``: what the methods below use.
    private let checked: Client

    /// - Parameters:
    ///   - serverURL: The server, e.g. `http://127.0.0.1:8080`.
    ///   - token: A bearer token, when the server has tokens configured.
    ///   - retry: How 503 + `Retry-After` is retried.
    ///   - transport: URLSession's by default.
    public init(
        serverURL: URL,
        token: String? = nil,
        retry: RetryPolicy = RetryPolicy(),
        transport: any ClientTransport = URLSessionTransport()
    ) {
        var middlewares: [any ClientMiddleware] = token.map { [BearerTokenMiddleware(token: $0)] } ?? []
        let keyed: [any ClientMiddleware] = [IdempotencyKeyMiddleware(), RetryMiddleware(policy: retry)]
        generated = Client(serverURL: serverURL, transport: transport, middlewares: middlewares + keyed)
        middlewares.append(ErrorBodyMiddleware())
        checked = Client(serverURL: serverURL, transport: transport, middlewares: middlewares + keyed)
    }

    /// Runs a read (`POST /query`) and decodes each row, an object keyed by column name, as `Row`.
    ///
    /// Integers are exact to 64 bits; a BLOB column decodes as ``SQLBlob``; REAL infinities arrive as the strings
    /// `"Infinity"` and `"-Infinity"` (API.md, "Values").
    public func query<Row: Decodable>(
        _ sql: String,
        _ params: [SQLValue] = [],
        as type: Row.Type = Row.self
    ) async throws -> [Row] {
        let body = Components.Schemas.QueryRequest(
            value1: Self.statement(sql, params),
            value2: Components.Schemas.Options(shape: .objects)
        )
        let result = try await call { try await checked.postQuery(body: .json(body)).ok.body.json }
        return try Self.decodeRows(result.rows ?? [], as: Row.self)
    }

    /// Runs one write (`POST /update`); answered once it is durable.
    public func update(
        _ sql: String,
        _ params: [SQLValue] = [],
        idempotencyKey: String? = nil
    ) async throws -> WriteResult {
        let body = Components.Schemas.UpdateRequest(value1: Self.statement(sql, params), value2: .init())
        let result = try await call {
            try await withKey(idempotencyKey) { client in
                try await client.postUpdate(body: .json(body)).ok.body.json
            }
        }
        return WriteResult(result)
    }

    /// Runs `statements` in one transaction (`POST /transaction`): all of them or none.
    public func transaction(
        _ statements: [Statement],
        idempotencyKey: String? = nil
    ) async throws -> [WriteResult] {
        let body = Components.Schemas.TransactionRequest(
            value1: .init(statements: statements.map { Self.statement($0.sql, $0.params) }),
            value2: .init()
        )
        let results = try await call {
            try await withKey(idempotencyKey) { client in
                try await client.postTransaction(body: .json(body)).ok.body.json
            }
        }
        return results.results.map(WriteResult.init)
    }

    /// `GET /health`'s status: `"ok"`; a server starting or stopping throws ``SQLitedError`` (503 `UNAVAILABLE`).
    public func health() async throws -> String {
        try await call { try await checked.getHealth().ok.body.json.status.rawValue }
    }

    /// One statement of a ``transaction(_:idempotencyKey:)``.
    public struct Statement: Sendable, Hashable {
        public var sql: String
        public var params: [SQLValue]

        public init(_ sql: String, _ params: [SQLValue] = []) {
            self.sql = sql
            self.params = params
        }
    }

    /// What a write did.
    public struct WriteResult: Sendable, Hashable {
        /// Rows inserted, updated or deleted.
        public var changes: Int
        /// The rowid of the last row inserted by the connection, when the server reports one.
        public var lastInsertRowID: Int64?

        public init(changes: Int, lastInsertRowID: Int64?) {
            self.changes = changes
            self.lastInsertRowID = lastInsertRowID
        }

        init(_ result: Components.Schemas.Result) {
            changes = result.changes ?? 0
            lastInsertRowID =
                switch result.lastInsertRowid.flatMap({ $0.value }) {
                case let value as Int: Int64(value)
                case let value as String: Int64(value)
                default: nil
                }
        }
    }

    // MARK: - Helpers

    /// The generated statement object for `sql` with positional `params`.
    static func statement(_ sql: String, _ params: [SQLValue]) -> Components.Schemas.StatementObject {
        Components.Schemas.StatementObject(sql: sql, params: params.isEmpty ? nil : .case1(params.map(\.container)))
    }

    /// Decodes the rows of a result, each an object or array of values, as `Row`s.
    static func decodeRows<Row: Decodable>(
        _ rows: [Components.Schemas.ResultRow],
        as type: Row.Type
    ) throws -> [Row] {
        try JSONDecoder().decode([Row].self, from: JSONEncoder().encode(rows))
    }

    /// Runs `body` on a client whose writes carry `key` (when given) instead of a new one.
    private func withKey<T>(_ key: String?, _ body: (Client) async throws -> T) async throws -> T {
        guard let key else { return try await body(checked) }
        return try await IdempotencyKeyMiddleware.$override.withValue(key) { try await body(checked) }
    }

    /// Runs `body`, rethrowing a ``SQLitedError`` the middleware raised as itself rather than in `ClientError`.
    private func call<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            if let error = error.underlyingError as? SQLitedError { throw error }
            throw error
        }
    }
}
