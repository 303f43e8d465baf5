import Testing

@testable import HTTPServer

/// `TargetCache` hands back the last decoded target for the same target string only, and decodes any other afresh,
/// with its errors.
@Suite struct TargetCacheTests {
    @Test func theSameTargetIsDecodedOnce() throws {
        var recent = TargetCache()
        #expect(recent.recent("/a?x=1") == nil)
        let first = try recent.decode("/a?x=1")
        #expect(first.path == "/a" && first.query.map(\.value) == ["1"])
        let again = try recent.decode("/a?x=1")
        #expect(again === first)
        #expect(recent.recent("/a?x=1") === first)
    }

    @Test func anotherTargetReplacesIt() throws {
        var recent = TargetCache()
        let first = try recent.decode("/a%20b")
        #expect(first.path == "/a b" && first.rawPath == "/a%20b")
        let second = try recent.decode("/c")
        #expect(second !== first && second.path == "/c")
        #expect(recent.recent("/a%20b") == nil)
    }

    @Test func anInvalidTargetIsRejectedAndNotRemembered() throws {
        var recent = TargetCache()
        let valid = try recent.decode("/ok")
        #expect(throws: RequestParser.Rejection.self) { try recent.decode("/bad%zz") }
        #expect(recent.recent("/ok") === valid)
    }
}
