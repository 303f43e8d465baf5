import Testing

@testable import HTTPServer

/// `HTTP2ResponseFields` builds a response's header block as libnghttp2 takes it: `:status` first, names in lower
/// case (RFC 9113 §8.2.1), the server's own and connection-specific fields dropped (RFC 9113 §8.2.2), invalid fields
/// dropped, in one reused buffer.
@Suite struct HTTP2ResponseFieldsTests {
    /// The block's fields as `name=value` strings.
    private static func pairs(_ fields: HTTP2ResponseFields) -> [String] {
        fields.withNameValues { nameValues in
            nameValues.map { pair in
                let name = String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self)
                let value = String(
                    decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen),
                    as: UTF8.self
                )
                return "\(name)=\(value)"
            }
        }
    }

    @Test func lowerCaseNamesAndDropInvalidFields() {
        let fields = HTTP2ResponseFields()
        fields.reset(status: 404)
        let kept = [
            fields.append(checkedName: "Content-Type", value: "application/json"),
            fields.append(checkedName: "Bad Name", value: "x"),
            fields.append(checkedName: "", value: "x"),
            fields.append(checkedName: "x-split", value: "a\r\nset-cookie: b"),
            fields.append(checkedName: "x-nul", value: "a\u{0}b"),
            fields.append(checkedName: "X-Mixed-CASE", value: "Value Stays"),
        ]
        #expect(kept == [true, false, false, false, false, true])
        fields.append("content-length", decimal: 1234)
        fields.append("content-length", decimal: 0)
        #expect(
            Self.pairs(fields) == [
                ":status=404", "content-type=application/json", "x-mixed-case=Value Stays", "content-length=1234",
                "content-length=0",
            ]
        )
        #expect(fields.count == 5)
    }

    /// Past the initial buffer the bytes grow and every field already appended stays whole.
    @Test func aLargeBlock_growsTheBufferAndKeepsEveryField() {
        let fields = HTTP2ResponseFields()
        let long = String(repeating: "v", count: 1000)
        fields.reset(status: 200)
        fields.append("x-a", long)
        fields.append("content-length", decimal: 12_345_678_901)
        fields.append("x-b", long + "w")
        #expect(Self.pairs(fields) == [":status=200", "x-a=\(long)", "content-length=12345678901", "x-b=\(long)w"])
    }

    /// A new block starts with its own status and nothing of the last one.
    @Test func reset_startsAnEmptyBlock() {
        let fields = HTTP2ResponseFields()
        fields.reset(status: 500)
        fields.append("x-a", "1")
        fields.reset(status: 204)
        #expect(fields.count == 1)
        #expect(Self.pairs(fields) == [":status=204"])
    }

    /// `:status` is a final response's code: one outside 200...599 (a handler's mistake) is sent as 500, as on
    /// HTTP/1.1.
    @Test(arguments: [
        (200, "200"), (204, "204"), (599, "599"), (100, "500"), (199, "500"), (600, "500"), (999, "500"), (0, "500"),
        (-5, "500"), (1000, "500"),
    ])
    func reset_writesAFinalCode(status: Int, digits: String) {
        let fields = HTTP2ResponseFields()
        fields.reset(status: status)
        #expect(Self.pairs(fields) == [":status=\(digits)"])
    }

    @Test func appendDate_writesTheCurrentIMFFixdate() {
        let fields = HTTP2ResponseFields()
        fields.reset(status: 200)
        fields.appendDate()
        let pairs = Self.pairs(fields)
        #expect(pairs.count == 2)
        let date = String(pairs[1].dropFirst("date=".count))
        #expect(pairs[1].hasPrefix("date=") && date.hasSuffix(" GMT") && date.utf8.count == 29)
    }

    /// The handler's fields lose those the server owns, those HTTP/2 forbids, and its `Server` when the server sends
    /// one; the others are lower-cased, in order, after the server's.
    @Test func appendFields_dropsServerOwnedAndConnectionSpecificFields() {
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain"), ("Content-Length", "3"), ("Transfer-Encoding", "chunked"),
            ("Connection", "close"), ("Keep-Alive", "timeout=5"), ("Proxy-Connection", "x"), ("Upgrade", "h2c"),
            ("TE", "trailers"), ("Date", "yesterday"), ("Trailer", "X"), ("Server", "handler"), ("X-Bad", "a\nb"),
            ("Vary", "Accept"),
        ])
        let fields = HTTP2ResponseFields()
        fields.reset(status: 200)
        fields.appendFields(of: headers, server: "sqlited")
        #expect(Self.pairs(fields) == [":status=200", "server=sqlited", "content-type=text/plain", "vary=Accept"])
        fields.reset(status: 200)
        fields.appendFields(of: headers, server: nil)
        #expect(Self.pairs(fields) == [":status=200", "content-type=text/plain", "server=handler", "vary=Accept"])
    }

    /// The same shared headers a second time give the same fields (from the bytes remembered), after other fields
    /// and in another block; other headers or another server value are not taken for them.
    @Test func appendFields_repeatedHeadersGiveTheSameFields() {
        let shared: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        let fields = HTTP2ResponseFields()
        fields.reset(status: 200)
        fields.appendFields(of: shared, server: "s")
        let first = Self.pairs(fields)
        #expect(first == [":status=200", "server=s", "content-type=application/json", "cache-control=no-store"])
        fields.reset(status: 201)
        fields.append("x-before", "1")
        fields.appendFields(of: shared, server: "s")
        fields.append("content-length", decimal: 7)
        #expect(
            Self.pairs(fields) == [
                ":status=201", "x-before=1", "server=s", "content-type=application/json", "cache-control=no-store",
                "content-length=7",
            ]
        )
        fields.reset(status: 200)
        fields.appendFields(of: shared, server: "other")
        #expect(Self.pairs(fields).dropFirst().first == "server=other")
        fields.reset(status: 200)
        fields.appendFields(of: shared, server: nil)
        #expect(Self.pairs(fields) == [":status=200", "content-type=application/json", "cache-control=no-store"])
        // Equal content in other storage, then changed content: each as its own fields say.
        fields.reset(status: 200)
        var changed = shared
        changed.set(name: "Cache-Control", value: "max-age=60")
        fields.appendFields(of: changed, server: nil)
        #expect(Self.pairs(fields) == [":status=200", "content-type=application/json", "cache-control=max-age=60"])
    }

    /// A server value with the same characters but other bytes is not the remembered one.
    @Test func appendFields_theServerValueIsComparedByBytes() {
        let shared: HTTPHeaders = ["X": "1"]
        let fields = HTTP2ResponseFields()
        fields.reset(status: 200)
        fields.appendFields(of: shared, server: "caf\u{E9}")
        fields.reset(status: 200)
        fields.appendFields(of: shared, server: "cafe\u{301}")
        // Compared as bytes: `==` would take the two spellings for one.
        #expect(
            Self.pairs(fields).map { Array($0.utf8) }
                == [":status=200", "server=cafe\u{301}", "x=1"].map { Array($0.utf8) }
        )
    }
}
