import Testing

@testable import HTTPServer

/// `RequestTarget` splits an origin-form target at its first `?`, percent-decodes a path or query part (refusing
/// bad escapes, an encoded NUL and bytes that are not UTF-8), decodes query pairs, and reads an absolute-form
/// target (RFC 9112 §3.2, RFC 3986 §2.1).
@Suite struct RequestTargetTests {
    @Test func split_atTheFirstQuestionMark() {
        let plain = RequestTarget.split("/a/b")
        #expect(plain.rawPath == "/a/b" && plain.rawQuery == nil)
        let withQuery = RequestTarget.split("/a?b=1?c")
        #expect(withQuery.rawPath == "/a" && withQuery.rawQuery == "b=1?c")
        let emptyQuery = RequestTarget.split("/a?")
        #expect(emptyQuery.rawPath == "/a" && emptyQuery.rawQuery == "")
        let onlyQuery = RequestTarget.split("?x")
        #expect(onlyQuery.rawPath == "" && onlyQuery.rawQuery == "x")
        // Not a `?` in another script's punctuation, and not decoded first: `%3F` is not a separator.
        #expect(RequestTarget.split("/a%3Fb").rawQuery == nil)
        #expect(RequestTarget.split("/é？x").rawQuery == nil)
    }

    @Test func percentDecode_decodesEscapesInEitherCase() {
        #expect(RequestTarget.percentDecode("/plain", plusAsSpace: false) == "/plain")
        #expect(RequestTarget.percentDecode("/a%20b", plusAsSpace: false) == "/a b")
        #expect(RequestTarget.percentDecode("%2f%2F", plusAsSpace: false) == "//")
        #expect(RequestTarget.percentDecode("caf%C3%A9", plusAsSpace: false) == "café")
        #expect(RequestTarget.percentDecode("%25", plusAsSpace: false) == "%")
        #expect(RequestTarget.percentDecode("%2525", plusAsSpace: false) == "%25", "decoded once only")
        #expect(RequestTarget.percentDecode("", plusAsSpace: false) == "")
        #expect(RequestTarget.percentDecode("é", plusAsSpace: false) == "é")
    }

    /// `+` is a space in a query (HTML forms), a plus in a path; `%2B` is a plus in both.
    @Test func percentDecode_plusIsASpaceOnlyWhenAsked() {
        #expect(RequestTarget.percentDecode("a+b", plusAsSpace: true) == "a b")
        #expect(RequestTarget.percentDecode("a+b", plusAsSpace: false) == "a+b")
        #expect(RequestTarget.percentDecode("a%2Bb+c", plusAsSpace: true) == "a+b c")
    }

    @Test(arguments: ["%", "%2", "a%", "a%4", "%zz", "%4g", "%g4", "% 20", "%%20", "ok%2"])
    func percentDecode_refusesABadEscape(text: String) {
        #expect(RequestTarget.percentDecode(text, plusAsSpace: false) == nil)
        #expect(RequestTarget.percentDecode(text, plusAsSpace: true) == nil)
    }

    /// An encoded NUL would cut C strings short; bytes that are not UTF-8 are no path or key.
    @Test(arguments: ["%00", "a%00b", "%C3", "%FF", "%C3%28", "%ED%A0%80", "%E9t%E9"])
    func percentDecode_refusesNULAndInvalidUTF8(text: String) {
        #expect(RequestTarget.percentDecode(text, plusAsSpace: false) == nil)
    }

    /// Works on a substring: only its own bytes are decoded.
    @Test func percentDecode_ofASubstring() {
        let target = "/x%20y?q=%41"
        let path = target[..<target.firstIndex(of: "?")!]
        #expect(RequestTarget.percentDecode(path, plusAsSpace: false) == "/x y")
    }

    @Test func decodeQuery_givesDecodedPairsInOrder() throws {
        let pairs = try #require(RequestTarget.decodeQuery("b=2&a=1&b=3&name=J%C3%B6rg+M&flag&=v&e="))
        #expect(pairs.map(\.name) == ["b", "a", "b", "name", "flag", "", "e"])
        #expect(pairs.map(\.value) == ["2", "1", "3", "Jörg M", "", "v", ""])
    }

    /// Empty parts between `&` are skipped; `=` after the first belongs to the value; an encoded `&` or `=` is data.
    @Test func decodeQuery_splitsOnlyOnLiteralSeparators() throws {
        #expect(RequestTarget.decodeQuery("")?.isEmpty == true)
        #expect(RequestTarget.decodeQuery("&&")?.isEmpty == true)
        let pairs = try #require(RequestTarget.decodeQuery("&a=b=c&&k%3D=v%26w&"))
        #expect(pairs.map(\.name) == ["a", "k="])
        #expect(pairs.map(\.value) == ["b=c", "v&w"])
    }

    /// One bad part, in a name or a value, refuses the whole query.
    @Test(arguments: ["a=%zz", "%zz=1", "ok=1&bad=%", "a=%00", "a=%FF"])
    func decodeQuery_refusesABadPart(query: String) {
        #expect(RequestTarget.decodeQuery(query) == nil)
    }

    @Test func absoluteForm_givesAuthorityAndOriginForm() throws {
        let full = try #require(RequestTarget.absoluteForm("http://example.com:8080/a/b?q=1"))
        #expect(full.authority == "example.com:8080" && full.originForm == "/a/b?q=1")
        let https = try #require(RequestTarget.absoluteForm("HTTPS://Example.com/"))
        #expect(https.authority == "Example.com" && https.originForm == "/")
    }

    /// An empty path stands for `/`, before a query too.
    @Test func absoluteForm_anEmptyPathIsSlash() throws {
        let bare = try #require(RequestTarget.absoluteForm("http://example.com"))
        #expect(bare.authority == "example.com" && bare.originForm == "/")
        let query = try #require(RequestTarget.absoluteForm("http://example.com?q=1"))
        #expect(query.authority == "example.com" && query.originForm == "/?q=1")
        let empty = try #require(RequestTarget.absoluteForm("http://"))
        #expect(empty.authority == "" && empty.originForm == "/")
    }

    /// Not `http` or `https`, no `//`, no colon, or user information in the authority (RFC 9110 §4.2.4).
    @Test(arguments: [
        "/origin", "*", "example.com:80", "ftp://example.com/", "http:/example.com/", "http:example.com",
        "httpx://example.com/", "http://user@example.com/", "http://user:pass@example.com/", "://example.com/",
    ])
    func absoluteForm_refusesWhatIsNotAnHTTPURIWithAPlainAuthority(target: String) {
        #expect(RequestTarget.absoluteForm(target) == nil)
    }

    /// An `@` past the authority (in the path or query) is no user information.
    @Test func absoluteForm_anAtSignAfterTheAuthorityIsData() throws {
        let form = try #require(RequestTarget.absoluteForm("http://example.com/a@b?c=@"))
        #expect(form.authority == "example.com" && form.originForm == "/a@b?c=@")
    }
}
