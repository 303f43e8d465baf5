import HTTPServer

/// A response together with what the request log line needs to know about how it was produced.
struct ServiceResponse {
    /// The response to send.
    var response: HTTPResponse
    /// The name of the token the request authenticated with; nil when authentication is off, the endpoint is open
    /// (`/health`), or authentication failed. Never the token itself.
    var tokenName: String?
    /// The error code when the request failed (for the metrics).
    var errorCode: String? = nil
}
