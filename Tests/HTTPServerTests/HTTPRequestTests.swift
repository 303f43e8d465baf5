import Testing

@testable import HTTPServer

/// `HTTPRequest` keeps value semantics although its fields share one box.
@Suite struct HTTPRequestTests {
    /// Changing a copy leaves the original as it was, field by field, and the other way round.
    @Test func copies_areIndependent() {
        let original = HTTPRequest(
            method: "POST",
            target: "/a%20b?x=1",
            headers: ["Host": "h"],
            body: Array("body".utf8),
            remoteAddress: "1.2.3.4:5"
        )
        var copy = original
        copy.method = "GET"
        copy.path = "/other"
        copy.body = []
        copy.headers.add(name: "X", value: "y")
        copy.keepAlive = false
        #expect(original.method == "POST")
        #expect(original.path == "/a b")
        #expect(original.rawPath == "/a%20b")
        #expect(original.queryValue("x") == "1")
        #expect(original.body == Array("body".utf8))
        #expect(original.headers.count == 1)
        #expect(original.keepAlive)
        #expect(copy.method == "GET" && copy.path == "/other" && copy.body.isEmpty && copy.headers.count == 2)
        #expect(!copy.keepAlive)
        #expect(copy.remoteAddress == "1.2.3.4:5")

        var second = copy
        second.target = "/changed"
        #expect(copy.target == "/a%20b?x=1")
        #expect(second.target == "/changed")
    }
}
