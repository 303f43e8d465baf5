import Testing

@testable import HTTPServer

/// `HTTPStatus` carries a code and its reason phrase (RFC 9110 §15): the standard phrase unless one is given,
/// "Unknown" for a code without one; it knows which statuses never carry content.
@Suite struct HTTPStatusTests {
    @Test(arguments: [
        (100, "Continue"), (101, "Switching Protocols"), (200, "OK"), (201, "Created"), (202, "Accepted"),
        (204, "No Content"), (206, "Partial Content"), (301, "Moved Permanently"), (302, "Found"),
        (304, "Not Modified"), (400, "Bad Request"), (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found"),
        (405, "Method Not Allowed"), (406, "Not Acceptable"), (408, "Request Timeout"), (409, "Conflict"),
        (411, "Length Required"), (413, "Content Too Large"), (414, "URI Too Long"),
        (415, "Unsupported Media Type"), (417, "Expectation Failed"), (422, "Unprocessable Content"),
        (429, "Too Many Requests"), (431, "Request Header Fields Too Large"), (500, "Internal Server Error"),
        (501, "Not Implemented"), (502, "Bad Gateway"), (503, "Service Unavailable"), (504, "Gateway Timeout"),
        (505, "HTTP Version Not Supported"), (507, "Insufficient Storage"),
    ])
    func code_getsItsStandardReasonPhrase(code: Int, phrase: String) {
        let status = HTTPStatus(code: code)
        #expect(status.code == code)
        #expect(status.reasonPhrase == phrase)
        #expect(status.description == "\(code) \(phrase)")
    }

    @Test(arguments: [0, 99, 102, 199, 203, 299, 418, 451, 599, 600, 1000, -1])
    func aCodeWithoutAStandardPhrase_isUnknown(code: Int) {
        #expect(HTTPStatus(code: code).reasonPhrase == "Unknown")
    }

    /// A phrase given is kept as given, and makes a status different from the standard one of its code.
    @Test func anExplicitPhrase_isKept() {
        let status = HTTPStatus(code: 200, reasonPhrase: "Fine")
        #expect(status.code == 200 && status.reasonPhrase == "Fine" && status.description == "200 Fine")
        #expect(status != .ok)
        #expect(HTTPStatus(code: 200, reasonPhrase: "OK") == .ok)
        #expect(Set([HTTPStatus.ok, HTTPStatus(code: 200), status]).count == 2)
    }

    /// 204 and 304 never carry content (RFC 9110 §6.4.1); every other status may, a handler's 1xx included: it is
    /// sent as 500.
    @Test func forbidsContent_for204And304Only() {
        for code in -1...1000 {
            let expected = code == 204 || code == 304
            #expect(HTTPStatus(code: code).forbidsContent == expected, "\(code)")
        }
    }

    /// A final response's code is sent as it is; any other as 500, with 500's reason phrase.
    @Test func finalCode_isTheCodeOr500() {
        for code in -1...1000 {
            let status = HTTPStatus(code: code, reasonPhrase: "Mine")
            let isFinal = (200...599).contains(code)
            #expect(status.finalCode == (isFinal ? code : 500), "\(code)")
            #expect(status.finalReasonPhrase == (isFinal ? "Mine" : "Internal Server Error"), "\(code)")
        }
    }

    @Test func namedStatuses_haveTheirCodes() {
        let named: [(HTTPStatus, Int)] = [
            (.continue, 100), (.ok, 200), (.created, 201), (.noContent, 204), (.notModified, 304), (.badRequest, 400),
            (.unauthorized, 401), (.forbidden, 403), (.notFound, 404), (.methodNotAllowed, 405),
            (.requestTimeout, 408), (.conflict, 409), (.contentTooLarge, 413), (.uriTooLong, 414),
            (.unsupportedMediaType, 415), (.expectationFailed, 417), (.requestHeaderFieldsTooLarge, 431),
            (.internalServerError, 500), (.notImplemented, 501), (.serviceUnavailable, 503),
            (.httpVersionNotSupported, 505), (.insufficientStorage, 507),
        ]
        for (status, code) in named {
            #expect(status.code == code)
            #expect(status == HTTPStatus(code: code))
            #expect(status.reasonPhrase != "Unknown")
        }
    }
}
