import Testing

@testable import HTTPServer

/// The small structures behind an HTTP/2 session's per-request work: the stream table (a linear array that turns
/// into a dictionary past a few streams), the cache of header value strings, the response header block, and the
/// request head.
@Suite struct HTTP2SessionStateTests {
    @Test func streamTable_keepsEveryStreamAcrossTheSwitchToADictionaryAndBack() {
        var table = StreamTable<String>()
        let count = StreamTable<String>.linearLimit * 3
        for id in 0..<count { table[Int32(id * 2 + 1)] = "stream \(id * 2 + 1)" }
        #expect(table.count == count)
        for id in 0..<count { #expect(table[Int32(id * 2 + 1)] == "stream \(id * 2 + 1)") }
        // Iteration visits each entry once, dictionary and all.
        var seen: [Int32: String] = [:]
        for (id, value) in table {
            #expect(seen[id] == nil)
            seen[id] = value
        }
        #expect(seen.count == count && seen[5] == "stream 5")
        #expect(table[2] == nil)
        table[3] = "replaced"
        #expect(table[3] == "replaced")
        #expect(table.count == count)
        for id in 0..<count {
            let removed = table.removeValue(forKey: Int32(id * 2 + 1))
            #expect(removed == "stream \(id * 2 + 1)" || (id == 1 && removed == "replaced"))
        }
        #expect(table.isEmpty)
        let absent = table.removeValue(forKey: 1)
        #expect(absent == nil)
        // Linear again once empty: entries added now are found and removed as before.
        table[7] = "seven"
        table[9] = "nine"
        table[7] = nil
        #expect(table.map(\.id) == [9] && table.map(\.value) == ["nine"])
        #expect(table[9] == "nine")
    }

    @Test func streamTableOfVoid_isASetOfStreamIDs() {
        var set = StreamTable<Void>()
        set.insert(1)
        set.insert(3)
        set.insert(1)
        #expect(set.contains(1) && set.contains(3) && !set.contains(5))
        #expect(set.ids == [1, 3])
        set.remove(1)
        #expect(set.ids == [3])
    }

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

    @Test func responseFields_lowerCaseNamesAndDropInvalidFields() {
        let fields = HTTP2ResponseFields()
        fields.reset(status: 404)
        let kept = [
            fields.append(checkedName: "Content-Type", value: "application/json"),
            fields.append(checkedName: "Bad Name", value: "x"),
            fields.append(checkedName: "", value: "x"),
            fields.append(checkedName: "x-split", value: "a\r\nset-cookie: b"),
            fields.append(checkedName: "x-nul", value: "a\u{0}b"),
        ]
        #expect(kept == [true, false, false, false, false])
        fields.append("content-length", decimal: 1234)
        fields.append("content-length", decimal: 0)
        var pairs: [String] = []
        fields.withNameValues { nameValues in
            for pair in nameValues {
                let name = String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self)
                let value = String(
                    decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen),
                    as: UTF8.self
                )
                pairs.append("\(name)=\(value)")
            }
        }
        #expect(pairs == [":status=404", "content-type=application/json", "content-length=1234", "content-length=0"])
        // Past the initial 256 bytes the buffer grows and every field stays whole.
        let long = String(repeating: "v", count: 1000)
        fields.reset(status: 200)
        fields.append("x-a", long)
        fields.append("content-length", decimal: 12_345_678_901)
        fields.append("x-b", long + "w")
        var grown: [String] = []
        fields.withNameValues { nameValues in
            for pair in nameValues {
                grown.append(
                    String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
                )
            }
        }
        #expect(grown == ["200", long, "12345678901", long + "w"])
        // Reused: a new block starts empty.
        fields.reset(status: 200)
        #expect(fields.count == 1)
    }

    @Test func requestHead_authorityStandsInForHostOnlyWhenThereIsNoHostField() {
        let withoutHost = HTTP2RequestHead([(":method", "GET"), (":path", "/"), (":authority", "a.example")])
        #expect(withoutHost.headers["host"] == "a.example")
        #expect(withoutHost.fields.map(\.name) == [":method", ":path", ":authority"])
        let withHost = HTTP2RequestHead([(":method", "GET"), (":authority", "a.example"), ("host", "b.example")])
        #expect(withHost.headers.values(for: "host") == ["b.example"])
        #expect(withHost.host == "b.example")
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
