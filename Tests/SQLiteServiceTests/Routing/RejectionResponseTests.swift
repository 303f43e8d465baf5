import HTTPServer
import Testing

@testable import SQLiteService

/// The service's body for the HTTP server's own refusals (``SQLiteService/response(to:)``): the contract's error
/// object, the same as every other error's (API.md, "Errors").
@Suite struct RejectionResponseTests {
    /// Checks each refusal the server makes: its status kept, the contract's JSON body with its code and message, no
    /// `sqlite_code`, and the JSON content type.
    @Test(arguments: [
        (HTTPStatus.badRequest, "BAD_REQUEST", "both Content-Length and Transfer-Encoding"),
        (.requestTimeout, "REQUEST_TIMEOUT", "request not received in time"),
        (.contentTooLarge, "PAYLOAD_TOO_LARGE", "request body larger than 10 bytes"),
        (.serviceUnavailable, "UNAVAILABLE", "server busy or shutting down, retry later"),
        (.requestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE", "a \"quoted\" name\n"),
    ])
    func refusal_isTheContractsErrorBody(status: HTTPStatus, code: String, message: String) throws {
        let fixture = try ServiceFixture()
        let response = fixture.service.response(to: HTTPRejection(status: status, code: code, message: message))
        #expect(response.status == status)
        #expect(response.headers.values(for: "Content-Type") == ["application/json; charset=utf-8"])
        guard case .bytes(let body) = response.body,
            case .object(let object) = try JSONParser().parse(body),
            case .object(let error)? = object["error"]
        else {
            Issue.record("not an error object")
            return
        }
        #expect(object.keys == ["error"])
        #expect(error["code"] == .string(code))
        #expect(error["message"] == .string(message))
        #expect(error["sqlite_code"] == nil)
    }
}
