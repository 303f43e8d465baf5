import Testing

@testable import HTTPServer

/// `HeadLineCache` hands a value back only for the very same bytes at the same position, and keeps within its bounds.
@Suite struct HeadLineCacheTests {
    static func value(_ lines: HeadLineCache<Int>, _ line: String, at position: Int) -> Int? {
        Array(line.utf8).withUnsafeBufferPointer { lines.value(for: $0, at: position) }
    }

    @Test func theSameBytesAtTheSamePositionHit() {
        var lines = HeadLineCache<Int>()
        lines.remember(Array("Host: a".utf8), 1, at: 0)
        #expect(Self.value(lines, "Host: a", at: 0) == 1)
        #expect(Self.value(lines, "Host: b", at: 0) == nil)
        #expect(Self.value(lines, "Host: a", at: 1) == nil)
        #expect(Self.value(lines, "Host: ", at: 0) == nil)
    }

    @Test func aDifferentLineReplacesItsPosition() {
        var lines = HeadLineCache<Int>()
        lines.remember(Array("a".utf8), 1, at: 0)
        lines.remember(Array("b".utf8), 2, at: 0)
        #expect(Self.value(lines, "a", at: 0) == nil)
        #expect(Self.value(lines, "b", at: 0) == 2)
    }

    @Test func keepsWithinItsBounds() {
        var lines = HeadLineCache<Int>()
        // Not past the first position not yet filled.
        lines.remember(Array("x".utf8), 1, at: 1)
        #expect(Self.value(lines, "x", at: 1) == nil)
        for position in 0..<HeadLineCache<Int>.positions + 1 {
            lines.remember(Array("line \(position)".utf8), position, at: position)
        }
        #expect(Self.value(lines, "line 0", at: 0) == 0)
        let last = HeadLineCache<Int>.positions - 1
        #expect(Self.value(lines, "line \(last)", at: last) == last)
        #expect(Self.value(lines, "line \(last + 1)", at: last + 1) == nil)
        let long = String(repeating: "v", count: HeadLineCache<Int>.maxLength + 1)
        lines.remember(Array(long.utf8), 7, at: 0)
        #expect(Self.value(lines, long, at: 0) == nil)
        #expect(Self.value(lines, "line 0", at: 0) == 0)
    }

    @Test func stringsAreRepairedAndRemembered() {
        var lines = HeadLineCache<String>()
        let bytes: [UInt8] = [0x61, 0xFF]
        let first = bytes.withUnsafeBufferPointer { lines.string(for: $0, at: 0) }
        #expect(first == String(decoding: bytes, as: UTF8.self))
        let again = bytes.withUnsafeBufferPointer { lines.string(for: $0, at: 0) }
        #expect(again == first)
    }
}
