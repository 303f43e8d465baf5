/// An HTTP response produced by a handler.
///
/// The server owns the framing: it sets `Content-Length` or `Transfer-Encoding: chunked`, `Connection`,
/// `Date` and `Server`, and drops any such field the handler set (RFC 9112 §6).
public struct HTTPResponse: Sendable {
    /// The status line's code and reason phrase.
    public var status: HTTPStatus
    /// Header fields set by the handler.
    public var headers: HTTPHeaders
    /// The content.
    public var body: Body

    /// The content of a response.
    public enum Body: Sendable {
        /// Content known up front, sent with `Content-Length`.
        case bytes([UInt8])
        /// Content produced incrementally on the handler's thread, sent with `Transfer-Encoding: chunked`
        /// (or, to an HTTP/1.0 client, delimited by closing the connection).
        case stream(@Sendable (HTTPBodyWriter) throws -> Void)
    }

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a JSON body of the server's error shape: `{"error":{"code":…,"message":…}}`.
    public static func jsonError(status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        let body =
            #"{"error":{"code":"# + JSONString.quoted(code) + #","message":"#
            + JSONString.quoted(message) + "}}"
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(body.utf8)))
    }
}

/// Minimal JSON string quoting for the server's own error bodies (RFC 8259 §7).
enum JSONString {
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
