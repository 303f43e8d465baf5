/// The HTTP version of a request.
///
/// HTTP/1.x comes from the request line; ``http2`` marks a request that arrived on an HTTP/2 stream. A request
/// announcing `HTTP/1.x` with `x > 1` is served as HTTP/1.1,
/// as RFC 9110 §6.2 allows for a higher minor version of the same major version.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1
    case http2

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        }
    }
}
