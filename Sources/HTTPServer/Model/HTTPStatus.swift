/// An HTTP status code with its reason phrase.
///
/// RFC 9110 §15. The reason phrase is informative only; clients must not depend on it.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit status code.
    public var code: Int
    /// The reason phrase sent on the status line.
    public var reasonPhrase: String

    /// Creates a status with an explicit reason phrase.
    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// Creates a status with the standard reason phrase for `code` (or "Unknown").
    public init(code: Int) {
        self.init(code: code, reasonPhrase: Self.standardReasonPhrase(for: code))
    }

    public var description: String { "\(code) \(reasonPhrase)" }

    /// Whether a response with this status never carries content (RFC 9110 §6.4.1: 204, 304), as sent
    /// (``finalCode``: a handler's 1xx is sent as 500, which may carry content).
    public var forbidsContent: Bool {
        let code = finalCode
        return code == 204 || code == 304
    }

    /// The code a handler's response is sent with, on both protocols: a final response's code (200...599, RFC 9110
    /// §15); any other is the handler's mistake and is sent as 500, so that the response stays well framed (a 1xx is
    /// interim: the client would wait for another response; a code of other than three digits breaks the status
    /// line). The server's own interim responses (100 Continue, 101 Switching Protocols) do not come through here.
    public var finalCode: Int { Self.finalCode(code) }

    /// ``finalCode`` of `code`.
    static func finalCode(_ code: Int) -> Int { (200...599).contains(code) ? code : 500 }

    /// The reason phrase sent with ``finalCode``: this status's own, or 500's standard one when the code was not a
    /// final response's.
    var finalReasonPhrase: String {
        (200...599).contains(code) ? reasonPhrase : Self.standardReasonPhrase(for: 500)
    }

    public static let `continue` = HTTPStatus(code: 100)
    public static let ok = HTTPStatus(code: 200)
    public static let created = HTTPStatus(code: 201)
    public static let noContent = HTTPStatus(code: 204)
    public static let notModified = HTTPStatus(code: 304)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let requestTimeout = HTTPStatus(code: 408)
    public static let conflict = HTTPStatus(code: 409)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let uriTooLong = HTTPStatus(code: 414)
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    public static let expectationFailed = HTTPStatus(code: 417)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)
    public static let insufficientStorage = HTTPStatus(code: 507)

    static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        default: "Unknown"
        }
    }
}
