import Foundation
import HTTPTypes
import OpenAPIRuntime

extension HTTPField.Name {
    /// `Idempotency-Key` (API.md, "Safe retries").
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// `Idempotent-Replayed: true` marks an answer the server replayed from a key's first request.
    public static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}

/// Gives every request that writes an `Idempotency-Key` (a new UUID) unless it has one, before the retries: a
/// request retried after 503 or a lost connection carries the same key, so the server runs it at most once.
struct IdempotencyKeyMiddleware: ClientMiddleware {
    /// The generated operations that write: the contract's keyed requests (`/update`, `/batch`, `/transaction`,
    /// the Tables API's writes). `SQLitedClientTests` checks the list against the document's `write` role.
    static let writingOperations: Set<String> = [
        "postUpdate", "postBatch", "postTransaction", "postTablesTableRows", "deleteTablesTableRows",
        "patchTablesTableRowsKey", "deleteTablesTableRowsKey",
    ]

    /// A caller's own key for the writes made in a task (``SQLitedClient``'s `idempotencyKey:` arguments).
    @TaskLocal static var override: String?

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if Self.writingOperations.contains(operationID), request.headerFields[.idempotencyKey] == nil {
            request.headerFields[.idempotencyKey] = Self.override ?? UUID().uuidString
        }
        return try await next(request, body, baseURL)
    }
}
