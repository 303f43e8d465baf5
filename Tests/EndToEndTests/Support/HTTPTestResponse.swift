/// One HTTP response as received by ``HTTPTestClient``: status, header fields in wire order, and the body bytes
/// after transfer decoding (chunked framing removed).
struct HTTPTestResponse: Sendable {
    var status: Int
    var reason: String
    /// `HTTP/1.1`, `HTTP/1.0`, as sent.
    var version: String
    /// Header fields in the order received; names as sent (compare them case-insensitively, RFC 9110 §5.1).
    var headers: [(name: String, value: String)]
    /// Trailer fields of a chunked body (RFC 9112 §7.1.2), usually empty.
    var trailers: [(name: String, value: String)]
    /// The body exactly as received after chunked decoding. Use this (or ``bodyText``) to check numbers textually.
    var body: [UInt8]

    /// The first value of a header field, matched case-insensitively.
    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    /// Every value of a header field, in order.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON with every number kept as written.
    func json() throws -> JSONValue {
        try JSONValue(parsing: body)
    }

    /// The `error.code` of an API error body (`SQLITE_AUTH`, `BAD_REQUEST`, …), or nil.
    var errorCode: String? {
        (try? json())?["error"]?["code"]?.stringValue
    }

    /// True when the server asked to close the connection after this response (RFC 9112 §9.6).
    var closesConnection: Bool {
        let tokens = headerValues("Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces().lowercased() }
        if tokens.contains("close") { return true }
        // An HTTP/1.0 response is persistent only with an explicit keep-alive.
        return version == "HTTP/1.0" && !tokens.contains("keep-alive")
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

extension String {
    func trimmingSpaces() -> String { self[...].trimmingSpaces() }
}
