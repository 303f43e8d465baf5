import Foundation
import HTTPTypes
import OpenAPIRuntime

extension HTTPField.Name {
    /// `Idempotency-Key` (API.md, "Safe retries").
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// `Idempotent-Replayed: true` marks an answer the server replayed from a key's first request.
    public static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}

/// Gives every request that writes an `Idempotency-Key` (a new UUIDv7, ``newKey(at:)``) unless it has one, before
/// the retries: a request retried after 503 or a lost connection carries the same key, so the server runs it at
/// most once.
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
            request.headerFields[.idempotencyKey] = Self.override ?? Self.newKey()
        }
        return try await next(request, body, baseURL)
    }

    /// A new key: a UUIDv7 (RFC 9562 §5.7) — the Unix time in milliseconds in its first 48 bits, then 74 random
    /// bits — in lower-case text. Keys that grow with time land next to each other in the server's key table, so
    /// a group commit's key rows share a few pages; random (v4) keys each dirty a page of their own, which cost the
    /// server about half its keyed throughput (docs/api.md, "Choose keys that grow with time").
    static func newKey(at date: Date = Date()) -> String {
        let milliseconds = UInt64(max(date.timeIntervalSince1970 * 1000, 0)) & 0xFFFF_FFFF_FFFF
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index)))
        }
        var generator = SystemRandomNumberGenerator()
        for index in 6..<16 {
            bytes[index] = UInt8.random(in: 0...255, using: &generator)
        }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 10
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]]
        return groups.map { $0.joined() }.joined(separator: "-")
    }
}
