import Foundation
import Testing

/// HTTP/2 at the frame level against the real binary, with Python's `h2` as the client (`h2_scenarios.py`):
/// multiplexing, flow control, every limit and the known floods. Error codes are RFC 9113's: 7 REFUSED_STREAM,
/// 9 COMPRESSION_ERROR, 11 ENHANCE_YOUR_CALM.
@Suite(.enabled(if: HTTP2Tools.pythonAvailable, "python3 with PyPI's h2 is not installed (.ci/run installs it)"))
struct HTTP2FrameTests {
    private static let enhanceYourCalm = 11

    private func withServer(
        _ environment: [String: String] = [:],
        _ body: (ServerProcess) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-h2")
        let server = try ServerProcess.startSqlited(directory: directory, environment: environment)
        defer { _ = server.kill() }
        try body(server)
        #expect(server.isRunning, "the server must survive every scenario")
    }

    /// The status a stream got, from a scenario's report.
    private func status(_ report: [String: Any], stream: Any?) -> Int? {
        guard let stream = stream as? Int else { return nil }
        return (report["statuses"] as? [String: Int])?[String(stream)]
    }

    @Test func slowStream_doesNotDelayAFastOneOnTheSameConnection() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("multiplex", port: server.port)
            let order = report["order"] as? [Int] ?? []
            #expect(order == [report["fast"] as? Int, report["slow"] as? Int].compactMap { $0 }, "\(report)")
            #expect(status(report, stream: report["slow"]) == 200)
            #expect(status(report, stream: report["fast"]) == 200)
        }
    }

    @Test func fiftyConcurrentStreams_eachGetsItsOwnAnswer() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("many", port: server.port)
            let streams = report["streams"] as? [Int] ?? []
            let bodies = report["bodies"] as? [String: String] ?? [:]
            #expect(streams.count == 50)
            for (index, stream) in streams.enumerated() {
                #expect(status(report, stream: stream) == 200)
                #expect(
                    bodies[String(stream)]?.contains("\"n\":\(index)}") == true,
                    "stream \(stream): \(bodies[String(stream)] ?? "none")"
                )
            }
        }
    }

    @Test func streamsPastTheLimit_areRefused() throws {
        try withServer(["SQLITED_LIMITS_HTTP2_MAX_CONCURRENT_STREAMS": "100"]) { server in
            let report = try HTTP2Tools.scenario("refused", port: server.port, argument: "110")
            let resets = report["resets"] as? [String: Int] ?? [:]
            #expect(resets.count >= 10, "\(report)")
            #expect(resets.values.allSatisfy { $0 == 7 }, "REFUSED_STREAM: \(resets)")
        }
    }

    /// After the client acknowledged the server's SETTINGS (as every real client does), the streams past
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` alone are refused: no GOAWAY, and an open stream is still answered
    /// (RFC 9113 §5.1.2; issue #23).
    @Test func streamsPastTheLimitAfterTheSettingsAck_areRefusedAndTheConnectionGoesOn() throws {
        try withServer(["SQLITED_LIMITS_HTTP2_MAX_CONCURRENT_STREAMS": "20"]) { server in
            let report = try HTTP2Tools.scenario("refused_after_ack", port: server.port, argument: "20")
            let streams = report["streams"] as? [Int] ?? []
            let resets = report["resets"] as? [String: Int] ?? [:]
            #expect(streams.count == 25)
            #expect(Set(resets.keys) == Set(streams.suffix(5).map(String.init)), "\(report)")
            #expect(resets.values.allSatisfy { $0 == 7 }, "REFUSED_STREAM: \(resets)")
            #expect(report["goaway"] is NSNull, "\(report)")
            #expect(report["closed"] as? Bool == false, "\(report)")
            #expect(status(report, stream: 1) == 200, "\(report)")
        }
    }

    /// A HEADERS frame on a stream id below one already used: on a skipped id, GOAWAY `PROTOCOL_ERROR` (RFC 9113
    /// §5.1.1); on the closed stream itself, a connection error too (§5.1; libnghttp2 says `STREAM_CLOSED` while it
    /// remembers the stream, `PROTOCOL_ERROR` after). Never silence.
    @Test(arguments: ["skipped_stream_id", "closed_stream_id"])
    func headersOnALowerStreamID_isAConnectionError(scenario: String) throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario(scenario, port: server.port)
            #expect(status(report, stream: 5) == 200, "\(report)")
            if scenario == "skipped_stream_id" {
                #expect(report["goaway"] as? Int == 1, "PROTOCOL_ERROR: \(report)")
            } else {
                #expect([1, 5].contains(report["goaway"] as? Int ?? -1), "\(report)")
            }
            #expect(report["last_stream_id"] as? Int == 5, "\(report)")
            #expect(report["closed"] as? Bool == true, "\(report)")
        }
    }

    @Test(arguments: ["rapid_reset", "ping_flood", "settings_flood", "window_update_flood", "empty_data_flood"])
    func flood_getsGoAwayEnhanceYourCalm_andOtherClientsAreServed(scenario: String) throws {
        try withServer { server in
            let bystander = try server.makeClient()
            let report = try HTTP2Tools.scenario(scenario, port: server.port)
            #expect(report["goaway"] as? Int == Self.enhanceYourCalm, "\(report)")
            #expect(report["closed"] as? Bool == true, "\(report)")
            #expect(try bystander.get("/health").status == 200)
        }
    }

    @Test func continuationFlood_endsTheConnection() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("continuation_flood", port: server.port)
            #expect((report["continuations"] as? Int ?? 0) > 16)
            #expect(report["goaway"] as? Int == Self.enhanceYourCalm, "\(report)")
            #expect(report["closed"] as? Bool == true)
            #expect(try server.makeClient().get("/health").status == 200)
        }
    }

    @Test func hugeHeaderValue_gets431OnItsStream_andTheConnectionGoesOn() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("big_header", port: server.port, argument: "20000")
            #expect(status(report, stream: report["stream"]) == 431, "\(report)")
            #expect(status(report, stream: report["after"]) == 200, "\(report)")
            let bodies = report["bodies"] as? [String: String] ?? [:]
            #expect(bodies[String(report["stream"] as? Int ?? 0)]?.contains("HEADERS_TOO_LARGE") == true)
        }
    }

    @Test func tooManyHeaderFields_get431() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("many_headers", port: server.port, argument: "150")
            #expect(status(report, stream: report["stream"]) == 431, "\(report)")
        }
    }

    @Test func hpackTableLargerThanAnnounced_isACompressionError() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("hpack_table_size", port: server.port)
            #expect(report["goaway"] as? Int == 9, "COMPRESSION_ERROR: \(report)")
            #expect(report["closed"] as? Bool == true)
        }
    }

    @Test func bodyPastTheLimit_gets413() throws {
        try withServer(["SQLITED_LIMITS_MAX_BODY_SIZE": "4096"]) { server in
            let streamed = try HTTP2Tools.scenario("big_body", port: server.port, argument: "20000")
            #expect(status(streamed, stream: streamed["stream"]) == 413, "\(streamed)")
            let declared = try HTTP2Tools.scenario("declared_big_body", port: server.port, argument: "5000")
            #expect(status(declared, stream: declared["stream"]) == 413, "\(declared)")
            let fits = try HTTP2Tools.scenario("big_body", port: server.port, argument: "1000")
            #expect(status(fits, stream: fits["stream"]) == 200, "\(fits)")
        }
    }

    @Test func bodyThatNeverCompletes_gets408() throws {
        try withServer(["SQLITED_LIMITS_BODY_TIMEOUT_MS": "300"]) { server in
            let report = try HTTP2Tools.scenario("stalled_body", port: server.port)
            #expect(status(report, stream: report["stream"]) == 408, "\(report)")
        }
    }

    @Test func idleConnection_getsGoAwayThenCloses() throws {
        try withServer(["SQLITED_LIMITS_IDLE_TIMEOUT_MS": "300"]) { server in
            let report = try HTTP2Tools.scenario("idle", port: server.port)
            #expect(report["goaway"] as? Int == 0, "NO_ERROR: \(report)")
            #expect(report["closed"] as? Bool == true)
        }
    }

    @Test func responseWaitsForTheClientsWindow() throws {
        try withServer { server in
            let report = try HTTP2Tools.scenario("flow_control", port: server.port, argument: "20000")
            let before = report["before_window_update"] as? Int ?? -1
            #expect(before > 0 && before <= 16384, "sent \(before) bytes into a 16384-byte window")
            #expect(report["ended"] as? Bool == true)
            #expect(report["rows"] as? Int == 20000, "\(report["total"] ?? 0) bytes")
        }
    }

    @Test func sigterm_sendsGoAway_letsTheStreamInProgressFinish() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-h2")
        let server = try ServerProcess.startSqlited(directory: directory, environment: [:])
        defer { _ = server.kill() }
        let report = try HTTP2Tools.scenario("shutdown", port: server.port, argument: String(server.processIdentifier))
        #expect(report["goaway"] as? Int == 0, "\(report)")
        #expect((report["last_stream_id"] as? Int ?? 0) >= 1)
        #expect(status(report, stream: report["slow"]) == 200, "\(report)")
        #expect(report["closed"] as? Bool == true)
        let status = try server.waitForExit(timeoutSeconds: 20)
        #expect(status == .exited(0))
    }
}
