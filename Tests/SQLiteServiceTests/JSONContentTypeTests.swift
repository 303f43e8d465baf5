import Testing

@testable import SQLiteService

@Suite struct JSONContentTypeTests {
    /// No Content-Type, or application/json in any case with well-formed parameters and a UTF-8 charset, is accepted.
    @Test(
        arguments: [
            nil, "application/json", "APPLICATION/JSON", "Application/Json", "application/json; charset=utf-8",
            "application/json;charset=UTF-8", "application/json ; charset=\"utf-8\"",
            "application/json;\tcharset=Utf-8",
            "application/json; foo=bar", "application/json; foo=\"a;b\\\"c\"; charset=utf-8", "application/json;",
            "application/json;;", " application/json ", "application/json; CHARSET=utf-8",
        ] as [String?]
    )
    func check_acceptsJSON(_ value: String?) throws {
        #expect(JSONContentType.isAcceptable(value))
        #expect(throws: Never.self) { try JSONContentType.check(value) }
    }

    /// Other media types, other charsets and malformed values get 415 UNSUPPORTED_MEDIA_TYPE.
    @Test(arguments: [
        "", " ", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
        "application/json-patch+json", "application/jsonx", "application/vnd.api+json", "text/json", "json",
        "application/", "/json", "application /json", "application/ json", "application/json charset=utf-8",
        "application/json; charset=latin1", "application/json; charset=utf-16", "application/json; charset=utf8",
        "application/json; charset=\"utf-8", "application/json; charset", "application/json; charset=",
        "application/json; =utf-8", "application/json, text/plain", "*/*", "application/*",
    ])
    func check_rejectsOtherTypes(_ value: String) throws {
        #expect(!JSONContentType.isAcceptable(value))
        do throws(APIError) {
            try JSONContentType.check(value)
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.status == 415)
            #expect(error.code == "UNSUPPORTED_MEDIA_TYPE")
        }
    }

    /// A value Swift's `==` calls equal to `application/json; charset=utf-8` (U+037E GREEK QUESTION MARK is
    /// canonically equivalent to `;`) is not taken as it: the bytes differ, and the media type parser refuses it.
    @Test func check_lookalikeOfTheCommonValueIsRefused() {
        let lookalike = "application/json\u{037E} charset=utf-8"
        #expect(lookalike == "application/json; charset=utf-8")
        #expect(!JSONContentType.isAcceptable(lookalike))
    }
}
