import Crypto
import HTTPServer

/// The `Idempotency-Key` of a write request, in its scope: the token's name, or the whole server when no tokens are
/// configured (API.md, "Safe retries: the Idempotency-Key header").
struct IdempotencyKey: Sendable, Hashable {
    /// The name of the token that sent the request; the empty string when authentication is off.
    let scope: String
    /// The key as the client sent it (case-sensitive).
    let key: String

    /// The request's key, or nil when it carries none.
    ///
    /// - Parameter tokenName: The authenticated token's name (nil when authentication is off).
    /// - Throws: 400 `INVALID_REQUEST` for a key that is empty, longer than 255 characters, has a character outside
    ///   `!`..`~`, or is sent in more than one field.
    init?(_ request: HTTPRequest, tokenName: String?) throws(APIError) {
        guard let (value, isRepeated) = request.headers.firstValue(for: Self.headerName) else { return nil }
        guard !isRepeated else { throw .invalidRequest("send a single Idempotency-Key field") }
        guard Self.isValid(value) else {
            throw .invalidRequest(
                "Idempotency-Key must be 1 to 255 characters, each a visible ASCII character (! to ~)"
            )
        }
        scope = tokenName ?? ""
        key = value
    }

    /// The request header field.
    static let headerName = "Idempotency-Key"

    /// Whether `value` is a well-formed key: 1–255 bytes, each `!` (0x21) to `~` (0x7E).
    static func isValid(_ value: String) -> Bool {
        var value = value
        // Over the contiguous bytes: `utf8.allSatisfy` cost about 550 instructions for a 30-character key.
        return value.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count <= 255 && !bytes.contains { $0 < 0x21 || $0 > 0x7E }
        }
    }
}

/// What one key belongs to: the request's method, its target (path and query string, as received) and the SHA-256
/// of its body's bytes as received. A retry must match all three to be answered with the stored answer.
struct IdempotencyFingerprint: Sendable, Hashable {
    /// `METHOD target`, e.g. `POST /update`.
    let request: String
    /// The SHA-256 digest of the body (32 bytes).
    let bodySHA256: [UInt8]

    init(request: String, bodySHA256: [UInt8]) {
        self.request = request
        self.bodySHA256 = bodySHA256
    }

    init(_ request: HTTPRequest) {
        self.request = request.method + " " + request.target
        // Copied as one buffer: `Array(digest)` iterates the digest byte by byte (about 2,000 instructions).
        bodySHA256 = SHA256.hash(data: request.body).withUnsafeBytes { Array($0) }
    }
}
