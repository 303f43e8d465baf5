import Foundation
import HTTPTypes
import OpenAPIRuntime

/// How ``SQLitedClient`` retries an answer of 503 with `Retry-After` (busy, locked, unavailable, too many
/// transactions), and a keyed write's 409 `IDEMPOTENCY_IN_PROGRESS` (also with `Retry-After`): after the seconds
/// the server asks for, at most `maxDelay`, up to `maxAttempts` tries in all.
///
/// A request that writes is retried only when it carries an `Idempotency-Key` (``SQLitedClient`` adds one), so that
/// a 503 whose outcome is unknown (a cluster's leader lost mid-commit) is never run twice.
public struct RetryPolicy: Sendable {
    /// Tries in all, the first included; 1 turns retries off.
    public var maxAttempts: Int
    /// The longest wait between two tries, whatever `Retry-After` says.
    public var maxDelay: Duration
    /// Waits; tests replace it to record the delays.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        maxAttempts: Int = 5,
        maxDelay: Duration = .seconds(5),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.maxDelay = maxDelay
        self.sleep = sleep
    }

    /// No retries.
    public static let never = RetryPolicy(maxAttempts: 1)
}

/// Retries a 503, or a keyed write's 409, that carries `Retry-After`, as ``RetryPolicy`` says; the body is kept to be
/// sent again.
struct RetryMiddleware: ClientMiddleware {
    let policy: RetryPolicy
    /// The most bytes of a request body kept for a retry (the server's default body limit is 10 MiB).
    static let bodyLimit = 64 * 1024 * 1024

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let writes = IdempotencyKeyMiddleware.writingOperations.contains(operationID)
        guard policy.maxAttempts > 1, !writes || request.headerFields[.idempotencyKey] != nil else {
            return try await next(request, body, baseURL)
        }
        let bytes: [UInt8]? = if let body { try await [UInt8](collecting: body, upTo: Self.bodyLimit) } else { nil }
        var attempt = 1
        while true {
            let (response, responseBody) = try await next(request, bytes.map { HTTPBody($0) }, baseURL)
            // 503 (busy, locked, unavailable) and, for a keyed write, 409 IDEMPOTENCY_IN_PROGRESS: the only 409 that
            // carries Retry-After (the first try with this key still runs; the retry gets its answer).
            let retriable = response.status.code == 503 || (response.status.code == 409 && writes)
            guard attempt < policy.maxAttempts, retriable,
                let seconds = response.headerFields[.retryAfter].flatMap({ Int($0) }), seconds >= 0
            else {
                return (response, responseBody)
            }
            attempt += 1
            try await policy.sleep(min(.seconds(seconds), policy.maxDelay))
        }
    }
}
