/// A request the server answers itself, before any handler sees it: malformed HTTP, a limit passed, a request head
/// not received in time, no room for another connection. The server decides the status and names the reason with
/// a stable code and a message; the handler decides what the body says (``HTTPHandler/response(to:)``), so that
/// the server knows HTTP and not its application's error format.
public struct HTTPRejection: Sendable, Equatable {
    /// The response's status (400, 408, 413, 414, 431, 501, 503, 505).
    public var status: HTTPStatus
    /// What went wrong, as a stable upper-case name (`BAD_REQUEST`, `REQUEST_TIMEOUT`, `UNAVAILABLE`, …).
    public var code: String
    /// What went wrong, for a person; never a part of the request's content.
    public var message: String

    public init(status: HTTPStatus, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The body the server sends when the handler does not choose one: the code and the message as plain text.
    public var plainTextResponse: HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: .bytes(Array("\(code): \(message)\n".utf8))
        )
    }
}

extension HTTPHandler {
    /// ``response(to:)`` as the server sends it: the rejection's status whatever the handler set, and a body known
    /// up front (a streamed one is replaced by ``HTTPRejection/plainTextResponse``).
    func rejectionResponse(_ rejection: HTTPRejection) -> (response: HTTPResponse, body: [UInt8]) {
        var response = response(to: rejection)
        response.status = rejection.status
        guard case .bytes(let body) = response.body else {
            let plain = rejection.plainTextResponse
            guard case .bytes(let body) = plain.body else { return (plain, []) }
            return (plain, body)
        }
        return (response, body)
    }
}
