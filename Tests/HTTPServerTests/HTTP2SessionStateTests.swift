import Testing

@testable import HTTPServer

/// The small caches behind an HTTP/2 session's per-request work, as the session uses them: header value strings,
/// the last request target, checked response fields. (The stream table, the response header block and the request
/// head have their own files: `StreamTableTests`, `HTTP2ResponseFieldsTests`, `HTTP2RequestHeadTests`.)
@Suite struct HTTP2SessionStateTests {
    private func string(_ cache: inout HeadLineCache<String>, _ text: String, at position: Int) -> String {
        Array(text.utf8).withUnsafeBufferPointer { cache.string(for: $0, at: position) }
    }

    @Test func headerValueCache_answersTheBytesGivenWhateverWasCached() {
        var cache = HeadLineCache<String>()
        #expect(string(&cache, "application/json", at: 0) == "application/json")
        #expect(string(&cache, "application/json", at: 0) == "application/json")
        // Same length, other bytes; shorter; longer; empty.
        #expect(string(&cache, "application/jsoN", at: 0) == "application/jsoN")
        #expect(string(&cache, "text/plain", at: 0) == "text/plain")
        #expect(string(&cache, "text/plain; charset=utf-8", at: 0) == "text/plain; charset=utf-8")
        #expect(string(&cache, "", at: 0) == "")
        #expect(string(&cache, "x", at: 0) == "x")
        // A position past the cached ones, one past the bound, a value past the length bound.
        #expect(string(&cache, "gap", at: 5) == "gap")
        #expect(string(&cache, "b", at: 1) == "b")
        #expect(string(&cache, "far", at: HeadLineCache<String>.positions) == "far")
        let long = String(repeating: "v", count: HeadLineCache<String>.maxLength + 1)
        #expect(string(&cache, long, at: 2) == long)
        #expect(string(&cache, long, at: 2) == long)
        #expect(string(&cache, "b", at: 1) == "b")
        // Invalid UTF-8 is repaired the same way whether cached or not.
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        let first = invalid.withUnsafeBufferPointer { cache.string(for: $0, at: 3) }
        let second = invalid.withUnsafeBufferPointer { cache.string(for: $0, at: 3) }
        #expect(first == String(decoding: invalid, as: UTF8.self))
        #expect(second == first)
    }

    /// The last decoded target is given back only for the same bytes; a target that fails to decode changes nothing.
    @Test func recentTarget_decodesOnceAndOnlyTheSameBytes() throws {
        var recent = TargetCache()
        #expect(recent.recent("/a%20b?q=%C3%A9") == nil)
        let decoded = try recent.decode("/a%20b?q=%C3%A9")
        #expect(decoded.rawPath == "/a%20b" && decoded.path == "/a b")
        #expect(decoded.query.map(\.name) == ["q"] && decoded.query.map(\.value) == ["é"])
        #expect(recent.recent("/a%20b?q=%C3%A9")?.path == "/a b")
        #expect(recent.recent("/a%20b?q=%C3%A8") == nil)
        #expect(throws: RequestParser.Rejection.self) { try recent.decode("/bad%zz") }
        #expect(throws: RequestParser.Rejection.self) { try recent.decode("/ok?bad=%zz") }
        #expect(recent.recent("/a%20b?q=%C3%A9")?.path == "/a b")
        #expect(recent.recent("/\u{212A}") == nil)
        #expect(try recent.decode("*").path == "*")
    }

    @Test func checkedFields_rememberOnlyTheSameBytes() {
        var checked = ResponseFieldCache()
        #expect(checked.check(name: "X-K", value: "1") == true)
        #expect(checked.check(name: "X-K", value: "1") == true)
        #expect(checked.check(name: "X-\u{212A}", value: "1") == nil)
    }
}
