import Testing

@testable import HTTPServer

/// `HTTP2RequestHead` sorts a stream's fields as they arrive: pseudo-header fields by name, the others in order into
/// the request's headers; once finished, `:authority` stands in for a missing `host` (RFC 9113 §8.3.1).
@Suite struct HTTP2RequestHeadTests {
    @Test func pseudoFields_areKeptByName() {
        let head = HTTP2RequestHead([
            (":method", "POST"), (":scheme", "http"), (":path", "/a?b=1"), (":authority", "a.example"),
            ("content-type", "application/json"),
        ])
        #expect(head.method == "POST" && head.scheme == "http" && head.path == "/a?b=1")
        #expect(head.authority == "a.example")
        #expect(head.headers.map(\.name) == ["content-type", "host"])
        #expect(head.serial == 0)
    }

    /// Pseudo-header fields never go into the headers; an unknown one is dropped.
    @Test func pseudoFields_stayOutOfTheHeaders() {
        let head = HTTP2RequestHead([(":method", "GET"), (":protocol", "websocket"), (":path", "/")])
        #expect(head.headers.isEmpty)
        #expect(head.fields.map(\.name) == [":method", ":path"])
    }

    @Test func pseudoField_isKnownByItsExactName() {
        #expect(HTTP2RequestHead.PseudoField(":method") == .method)
        #expect(HTTP2RequestHead.PseudoField(":path") == .path)
        #expect(HTTP2RequestHead.PseudoField(":authority") == .authority)
        #expect(HTTP2RequestHead.PseudoField(":scheme") == .scheme)
        #expect(HTTP2RequestHead.PseudoField(":status") == .other)
        #expect(HTTP2RequestHead.PseudoField(":METHOD") == .other)
        #expect(HTTP2RequestHead.PseudoField(":") == .other)
        #expect(HTTP2RequestHead.PseudoField("method") == nil)
        #expect(HTTP2RequestHead.PseudoField("") == nil)
        #expect(HTTP2RequestHead.PseudoField(" :path") == nil)
    }

    /// A repeated pseudo-header field replaces the earlier value (libnghttp2 never passes one twice).
    @Test func aRepeatedPseudoField_replacesTheEarlierValue() {
        let head = HTTP2RequestHead()
        head.set(.path, "/first")
        head.set(.path, "/second")
        head.set(.other, "ignored")
        head.finish()
        #expect(head.path == "/second")
        #expect(head.fields.map(\.value) == ["/second"])
    }

    /// Other fields keep their order, repeats included.
    @Test func otherFields_keepTheirOrder() {
        let head = HTTP2RequestHead([
            (":method", "GET"), ("accept", "a"), ("cookie", "x=1"), ("accept", "b"), ("cookie", "y=2"),
        ])
        #expect(head.headers.map(\.name) == ["accept", "cookie", "accept", "cookie"])
        #expect(head.headers.values(for: "cookie") == ["x=1", "y=2"])
    }

    @Test func authorityStandsInForHostOnlyWhenThereIsNoHostField() {
        let withoutHost = HTTP2RequestHead([(":method", "GET"), (":path", "/"), (":authority", "a.example")])
        #expect(withoutHost.headers["host"] == "a.example")
        #expect(withoutHost.host == nil)
        let withHost = HTTP2RequestHead([(":method", "GET"), (":authority", "a.example"), ("host", "b.example")])
        #expect(withHost.headers.values(for: "host") == ["b.example"])
        #expect(withHost.host == "b.example")
        let neither = HTTP2RequestHead([(":method", "GET"), (":path", "/")])
        #expect(neither.headers["host"] == nil && neither.host == nil)
    }

    /// `host` is the first `host` field; later ones stay in the headers.
    @Test func host_isTheFirstHostField() {
        let head = HTTP2RequestHead([("host", "a.example"), ("hostname", "x"), ("host", "b.example")])
        #expect(head.host == "a.example")
        #expect(head.headers.values(for: "host") == ["a.example", "b.example"])
    }

    /// Until `finish`, no `host` stands in for the authority.
    @Test func beforeFinish_theAuthorityIsNotAHost() {
        let head = HTTP2RequestHead()
        head.set(.authority, "a.example")
        head.add(name: "accept", value: "*/*")
        #expect(head.headers["host"] == nil)
        head.finish()
        #expect(head.headers["host"] == "a.example")
        #expect(head.headers.map(\.name) == ["accept", "host"])
    }

    /// `fields` lists the pseudo-header fields first, in the order `:method`, `:scheme`, `:path`, `:authority`
    /// whatever the order they came in, then the others as they came; a `host` that stands in for the authority is
    /// not a field the client sent.
    @Test func fields_givePseudoFieldsFirstAndOmitTheStandInHost() {
        let head = HTTP2RequestHead([
            (":authority", "a.example"), (":path", "/p"), (":scheme", "https"), (":method", "PUT"), ("b", "2"),
            ("a", "1"),
        ])
        #expect(head.fields.map(\.name) == [":method", ":scheme", ":path", ":authority", "b", "a"])
        #expect(head.fields.map(\.value) == ["PUT", "https", "/p", "a.example", "2", "1"])
        let sentHost = HTTP2RequestHead([(":authority", "a.example"), ("host", "h.example")])
        #expect(sentHost.fields.map(\.name) == [":authority", "host"])
        #expect(sentHost.fields.map(\.value) == ["a.example", "h.example"])
    }

    /// A head made from another's `fields` is the same head.
    @Test func fields_roundTrip() {
        let original = HTTP2RequestHead([
            (":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "a.example"), ("x", "1"),
        ])
        let copy = HTTP2RequestHead(original.fields)
        #expect(copy.fields.map(\.name) == original.fields.map(\.name))
        #expect(copy.fields.map(\.value) == original.fields.map(\.value))
        #expect(copy.headers.map(\.value) == original.headers.map(\.value))
    }
}
