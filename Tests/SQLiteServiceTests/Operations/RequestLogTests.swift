import HTTPServer
import Logging
import Testing

@testable import SQLiteService

/// The one log line per request.
@Suite struct RequestLogTests {
    /// Checks that a request logs method, path, status, duration and response bytes, at the configured level.
    @Test func request_logsOneLineWithMethodPathStatusDurationBytes() throws {
        let fixture = try ServiceFixture()
        let response = fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)

        let lines = fixture.logs.records.filter { $0.message == "request" }
        try #require(lines.count == 1)
        let line = lines[0]
        #expect(line.level == .info)
        #expect(line.metadata["method"] == "POST")
        #expect(line.metadata["path"] == "/update")
        #expect(line.metadata["status"] == "200")
        #expect(line.metadata["bytes"] == String(try bodyBytes(response).count))
        let duration = try #require(line.metadata["duration_ms"].flatMap(Double.init))
        #expect(duration >= 0)
    }

    /// Checks that bound values, SQL text, query strings and header fields never reach the log, even when the
    /// request fails.
    @Test func request_neverLogsValuesOrTokens() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x UNIQUE)"}"#)
        let headers: HTTPHeaders = ["Authorization": "Bearer token-7f3a", "Content-Type": "application/json"]
        for _ in 0..<2 {
            _ = fixture.service.handle(
                .init(
                    method: "POST",
                    target: "/update?note=query-9c1e",
                    headers: headers,
                    body: Array(#"{"sql": "INSERT INTO t VALUES (?)", "params": ["value-5d2b"]}"#.utf8)
                )
            )
        }

        let text = fixture.logs.records.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(
            fixture.logs.records.filter { $0.message == "request" }.map { $0.metadata["status"] } == [
                "200", "200", "409",
            ]
        )
        for secret in ["value-5d2b", "token-7f3a", "query-9c1e", "INSERT"] {
            #expect(!text.contains(secret))
        }
    }

    /// Checks that setOptions changes the request log level for later requests.
    @Test func setOptions_changesRequestLogLevel() throws {
        let fixture = try ServiceFixture()
        fixture.send("GET", "/health")
        var options = fixture.service.options
        options.requestLogLevel = .debug
        fixture.service.setOptions(options)
        fixture.send("GET", "/health")

        let levels = fixture.logs.records.filter { $0.message == "request" }.map(\.level)
        #expect(levels == [.info, .debug])
        #expect(fixture.service.options.metrics != nil)
    }

    /// Checks that a request's path is logged without control characters.
    @Test func request_logsPrintablePath() throws {
        let fixture = try ServiceFixture()
        fixture.send("GET", "/a%0Ab%1B")
        let line = try #require(fixture.logs.records.first { $0.message == "request" })
        #expect(line.metadata["path"] == "/ab")
        #expect(line.metadata["status"] == "404")
    }
}
