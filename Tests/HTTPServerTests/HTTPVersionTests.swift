import Testing

@testable import HTTPServer

/// `HTTPVersion` names itself as the protocol writes it.
@Suite struct HTTPVersionTests {
    @Test(arguments: [(HTTPVersion.http1_0, "HTTP/1.0"), (.http1_1, "HTTP/1.1"), (.http2, "HTTP/2")])
    func description_isTheProtocolsName(version: HTTPVersion, name: String) {
        #expect(version.description == name)
        #expect("\(version)" == name)
    }

    @Test func versions_areDistinct() {
        #expect(Set([HTTPVersion.http1_0, .http1_1, .http2, .http1_1]).count == 3)
    }
}
