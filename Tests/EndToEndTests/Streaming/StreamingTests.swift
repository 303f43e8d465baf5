import Foundation
import Testing

/// Streamed results (`../shared/API.md`, "Streaming results: NDJSON and CSV") against the real binary, read by
/// clients nobody here wrote: Python's `csv` and `json` modules, raw HTTP/1.1 and PyPI's `h2`
/// (`stream_scenarios.py`, which checks each rule and reports what failed).
@Suite(.enabled(if: HTTP2Tools.pythonAvailable, "python3 with PyPI's h2 is not installed (.ci/run installs it)"))
struct StreamingTests {
    static let script = TestPaths.packageRoot.appendingPathComponent(
        "Tests/EndToEndTests/Streaming/stream_scenarios.py"
    )

    /// Runs `scenario` against `server`; fails with every rule the script found broken.
    private func run(_ scenario: String, on server: ServerProcess) throws {
        try run(scenario, port: server.port)
    }

    private func run(_ scenario: String, port: Int, cluster: Bool = false) throws {
        let python = try #require(HTTP2Tools.python, "python3 with PyPI's h2 is required")
        let result = try python.run(
            [Self.script.path, scenario, String(port)] + (cluster ? ["cluster"] : []),
            timeoutSeconds: 120
        )
        try #require(result.status == 0, "stream_scenarios.py \(scenario) failed: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let failures = try #require(object?["failures"] as? [String], "not a report: \(result.stdout)")
        #expect(failures.isEmpty, "\(scenario): \(failures.joined(separator: "\n"))")
    }

    private func start(_ environment: [String: String] = [:]) throws -> (ServerProcess, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "sqlited-stream")
        return (try ServerProcess.startSqlited(directory: directory, environment: environment), directory)
    }

    /// CSV read back with Python's `csv` module equals the JSON answer value for value, for `/query` and the Tables
    /// list: commas, quotes, CR/LF, leading spaces, NULL against empty text, blobs (empty too), ±Infinity, -0.0,
    /// the extreme doubles and 64-bit integers; CRLF after every record; the header is the columns.
    @Test func csv_readBackByPythonsCSVModule_equalsTheJSONAnswer() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("csv_matches_json", on: server)
    }

    /// NDJSON: the head line (columns, declared types), a line per row equal to the JSON answer's rows in both
    /// shapes and with `int64_as_string`, `{"rows": n}` last; `max_rows` is the request's own; an empty result.
    @Test func ndjson_linesEqualTheJSONAnswer() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("ndjson_matches_json", on: server)
    }

    /// A statement failing after 4,000 rows (integer overflow in `abs`) over HTTP/1.1: NDJSON ends with the error
    /// line and its last chunk; CSV is cut after more than one buffer of rows (no last chunk); an error before the
    /// first row is the JSON error with its status.
    @Test func errorMidStream_http1_ndjsonErrorLine_csvCut() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("error_midstream_http1", on: server)
    }

    /// The same over HTTP/2: NDJSON's stream ends normally with the error line; CSV's stream is reset with
    /// `INTERNAL_ERROR`; the connection serves further streams, a 200,000-row CSV among them, whole.
    @Test func errorMidStream_http2_ndjsonErrorLine_csvReset() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("error_midstream_http2", on: server)
    }

    /// A client that stops reading is cut at `limits.stream_stall_timeout_ms` (1 s here): HTTP/1.1 closes the
    /// connection without the last chunk, HTTP/2 resets the stream (`CANCEL`) and serves the connection's other
    /// streams; `sqlited_stream_stalls_total` counts them and the stream's reader is freed.
    @Test func stalledReader_isCutAtTheStallTimeout() throws {
        let (server, directory) = try start(["SQLITED_LIMITS_STREAM_STALL_TIMEOUT_MS": "1000"])
        defer { _ = server.kill() }
        _ = directory
        try run("stall_http1", on: server)
        try run("stall_http2", on: server)
    }

    /// With one reader, a client that disconnects mid-stream (a reset, HTTP/1.1 and HTTP/2) frees the reader at
    /// once: the metrics show it held, then released, and the next `/query` is served.
    @Test func disconnectMidStream_freesItsReader() throws {
        let (server, directory) = try start(["SQLITED_DATABASE_READERS": "1"])
        defer { _ = server.kill() }
        _ = directory
        try run("disconnect_frees_reader", on: server)
        let log = server.stderrLines + server.stdoutLines
        #expect(log.contains { $0.contains("streamed responses hold every reader") })
    }

    /// Past the stream's time limit (a request's `timeout_ms` lowers `limits.stream_timeout_ms`) NDJSON ends with a
    /// `TIMEOUT` line and CSV is cut.
    @Test func streamTimeout_ndjsonTimeoutLine_csvCut() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("stream_timeout", on: server)
    }

    /// `limits.stream_timeout_ms` (500 ms here) is the stream's own limit, the rows-per-response limit none.
    @Test func streamTimeout_fromTheConfiguration() throws {
        let (server, directory) = try start(["SQLITED_LIMITS_STREAM_TIMEOUT_MS": "500"])
        defer { _ = server.kill() }
        _ = directory
        try run("stream_timeout_config", on: server)
    }

    /// `Accept` negotiation with q-values (RFC 9110 §12.5.1) on `/query` and the Tables list: ties to JSON,
    /// wildcards, case, several fields, malformed fields disregarded, 406 `NOT_ACCEPTABLE`; other endpoints ignore
    /// `Accept`; `params_batch`, `_count` and errors found before the first byte are the ordinary JSON errors.
    @Test func accept_negotiation_andErrorsBeforeTheFirstByte() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("negotiation", on: server)
    }

    /// A streamed Tables list has every matching row (past the JSON page size) in the list's order, equal to the
    /// pages concatenated; `_after`/`_before` start after/before the cursor's row; `_limit`, `_columns`, `_shape`.
    @Test func tablesList_streamsEveryMatchingRow() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        try run("tables_stream", on: server)
    }

    /// On the cluster, through a follower: the same formats, values, negotiation and streamed Tables lists; rows
    /// streamed as the leader's ROWS parts arrive, so an error part way is the NDJSON error line or a cut CSV on
    /// both protocols (the rows of the part that failed are not sent: dqlite answers that part with the failure);
    /// the stream's time limit.
    @Test func cluster_streamsTheSameFormats() throws {
        let cluster = try SharedCluster.get()
        let follower = try cluster.followerIDs()[0]
        let url = cluster.nodes[follower - 1].baseURL
        let port = try #require(Int(url.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? ""))
        for scenario in [
            "csv_matches_json", "ndjson_matches_json", "negotiation", "tables_stream", "error_midstream_http1",
            "error_midstream_http2", "stream_timeout",
        ] {
            try run(scenario, port: port, cluster: true)
        }
    }
}
