import Logging
import SQLiteService
import Testing

@testable import sqlited

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own request log path writes exactly the line the general path writes for the same fields.
@Suite struct RequestLogLineTests {
    static let entries: [RequestLogEntry] = [
        .init(method: "POST", path: "/query", status: 200, duration: .microseconds(51), bytes: 123, tokenName: nil),
        .init(method: "GET", path: "/health", status: 503, duration: .zero, bytes: nil, tokenName: "ops"),
        .init(
            method: "GET",
            path: "/tables/{table}/rows/{key}",
            status: 200,
            duration: .microseconds(7),
            bytes: 9,
            tokenName: nil,
            protocolName: "h2"
        ),
        .init(
            method: "DELETE",
            path: "/schema/t",
            status: 200,
            duration: .seconds(12) + .microseconds(345_678),
            bytes: 1_234_567,
            tokenName: "app"
        ),
        .init(
            method: "POST",
            path: "/schema/two words",
            status: 404,
            duration: .milliseconds(12_345) + .microseconds(678),
            bytes: 0,
            tokenName: "say \"hi\""
        ),
        .init(method: "GET", path: "/tâble", status: 200, duration: .nanoseconds(999), bytes: 7, tokenName: ""),
        .init(
            method: "GET",
            path: "/del\u{7F}",
            status: 400,
            duration: .seconds(2) + .microseconds(5),
            bytes: 1,
            tokenName: "line\u{2028}break"
        ),
    ]

    /// Entries whose lines end alike, then differ in one field each: the remembered end of the previous line
    /// (RequestLineTail) is reused only for the very same fields, and every line still reads as the general path's.
    static let repeatedEntries: [RequestLogEntry] = {
        // A path longer than a String keeps inline, made twice: equal bytes in storage of its own each time.
        let longPath = { String(["/tables/", "{table}", "/rows/", "{key}"].joined()) }
        func entry(
            _ path: String = "/query",
            status: Int = 200,
            bytes: Int? = 57,
            microseconds: Int64 = 51,
            token: String? = nil,
            protocolName: String = "http/1.1"
        ) -> RequestLogEntry {
            .init(
                method: "POST",
                path: path,
                status: status,
                duration: .microseconds(microseconds),
                bytes: bytes,
                tokenName: token,
                protocolName: protocolName
            )
        }
        return [
            entry(), entry(bytes: 1_000, microseconds: 2_345), entry(status: 500), entry(status: 500),
            entry(token: "app"), entry(token: "app"), entry(token: "ops"), entry(protocolName: "h2"),
            entry("/update"), entry(longPath()), entry(longPath(), bytes: nil), entry("/tables/{table}/count"),
            entry("/two words"), entry("/two words"), entry(), entry(),
        ]
    }()

    /// The tail is taken again only for the very same field values: the same strings match, any field changed
    /// does not.
    @Test func requestLineTail_matchesOnlyTheSameFields() {
        let tail = RequestLineTail()
        let entry = Self.repeatedEntries[0]
        #expect(!tail.matches(entry))
        Array(" method=POST\n".utf8).withUnsafeBufferPointer { tail.remember(entry, tail: $0) }
        #expect(tail.matches(entry))
        #expect(tail.matches(Self.repeatedEntries[1]))  // other bytes and duration, same fields
        for changed in Self.repeatedEntries[2...] {
            let same =
                changed.status == entry.status && changed.path == entry.path && changed.tokenName == entry.tokenName
                && changed.protocolName == entry.protocolName
            if !same { #expect(!tail.matches(changed), "\(changed.path) \(changed.status)") }
        }
    }

    @Test(.timeLimit(.minutes(1))) func logRequest_repeatedFields_writesTheSameLinesAsTheGeneralPath() throws {
        let (lines, expected) = try Self.writeThroughBothPaths(Self.repeatedEntries)
        #expect(lines.joined(separator: "\n") + "\n" == expected)
    }

    /// Writes `entries` through `logRequest` into a pipe and returns the lines read back, with what the general
    /// path writes for them.
    static func writeThroughBothPaths(
        _ entries: [RequestLogEntry],
        level: (Int) -> Logger.Level = { _ in .info }
    ) throws -> (lines: [Substring], expected: String) {
        let (readEnd, writeEnd) = try LogSinkTests.makePipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let sink = LogSink(fd: writeEnd) { "dropped \($0)\n" }
        let handler = DaemonLogHandler(
            label: "sqlited",
            format: .text,
            levelControl: LogLevelControl(.info),
            sink: sink
        )
        var expected = ""
        for (index, entry) in entries.enumerated() {
            handler.logRequest(entry, level: level(index))
            expected += DaemonLogHandler.line(
                level: level(index),
                label: "sqlited",
                message: "request",
                metadata: entry.metadata,
                format: .text
            )
        }
        #expect(sink.flush(timeout: .seconds(30)))
        sink.close()
        return (LogSinkTests.readLines(readEnd, count: entries.count), expected)
    }

    /// For each entry: the line written through `logRequest` (the daemon's path, bytes straight to the sink) equals
    /// `DaemonLogHandler.line` for the entry's metadata (the general path, what `Logger.log` writes).
    @Test(.timeLimit(.minutes(1))) func logRequest_writesTheSameLineAsTheGeneralPath() throws {
        let (lines, expected) = try Self.writeThroughBothPaths(Self.entries) { $0 % 2 == 0 ? .info : .notice }
        #expect(lines.joined(separator: "\n") + "\n" == expected)
        #expect(
            expected.hasPrefix(
                "info sqlited: request bytes=123 duration_ms=0.051 method=POST path=/query protocol=http/1.1 status=200 token=-\n"
            )
        )
    }
}
