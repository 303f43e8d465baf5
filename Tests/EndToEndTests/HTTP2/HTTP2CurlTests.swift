import Foundation
import Testing

/// Every endpoint over HTTP/2 with Debian's curl (linked with libnghttp2): prior knowledge (`--http2-prior-knowledge`)
/// and the HTTP/1.1 upgrade (`--http2`); the same statuses and bodies as over HTTP/1.1, and `listen.http2: false`.
@Suite(.enabled(if: HTTP2Tools.curlAvailable, "curl with HTTP2 support is not installed (.ci/run installs it)"))
struct HTTP2CurlTests {
    private struct Answer: Equatable {
        var version: String
        var status: Int
        var body: String
    }

    /// One request with curl; `mode` is `--http2-prior-knowledge`, `--http2` or `--http1.1`.
    private func curl(
        _ server: ServerProcess,
        _ mode: String,
        _ method: String,
        _ path: String,
        json: String? = nil
    ) throws -> Answer {
        let curl = try #require(HTTP2Tools.curl, "curl with HTTP2 support is required")
        var arguments = ["-s", "-S", mode, "-X", method, "-o", "-", "-w", "\n%{http_version} %{response_code}"]
        if method == "HEAD" {
            arguments = ["-s", "-S", mode, "-I", "-o", "/dev/null", "-w", "\n%{http_version} %{response_code}"]
        }
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        arguments.append(server.baseURL + path)
        let result = try curl.run(arguments, timeoutSeconds: 30)
        try #require(result.status == 0, "curl \(arguments): \(result.stderr)")
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let trailer = lines.removeLast().split(separator: " ")
        return Answer(
            version: String(trailer.first ?? ""),
            status: Int(trailer.last ?? "") ?? 0,
            body: lines.joined(separator: "\n")
        )
    }

    private func start(_ environment: [String: String] = [:]) throws -> (ServerProcess, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "sqlited-h2curl")
        return (try ServerProcess.startSqlited(directory: directory, environment: environment), directory)
    }

    @Test func priorKnowledge_everyEndpoint_answersAsOverHTTP1() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        let setup = try curl(
            server,
            "--http2-prior-knowledge",
            "POST",
            "/update",
            json: #"{"sql": "CREATE TABLE h2(id INTEGER PRIMARY KEY, name TEXT)"}"#
        )
        #expect(setup == Answer(version: "2", status: 200, body: setup.body))
        // (method, path, body): each asked over HTTP/2 and over HTTP/1.1 in turn; writes are made idempotent by
        // the pairs they come in (an INSERT OR REPLACE, a DELETE of a row that the next insert restores).
        let requests: [(String, String, String?)] = [
            ("POST", "/update", #"{"sql": "INSERT OR REPLACE INTO h2 VALUES (?, ?)", "params": [1, "one"]}"#),
            ("POST", "/query", #"{"sql": "SELECT id, name FROM h2 ORDER BY id"}"#),
            ("POST", "/query", #"{"sql": "SELECT * FROM nowhere"}"#),
            ("POST", "/query", #"{"sql": "#),
            ("POST", "/batch", #"{"statements": [{"sql": "SELECT 1 AS a"}, {"sql": "SELECT 2 AS b"}]}"#),
            (
                "POST", "/transaction",
                #"{"statements": [{"sql": "INSERT OR REPLACE INTO h2 VALUES (2, 'two')"}, {"sql": "SELECT count(*) AS n FROM h2"}]}"#
            ),
            ("GET", "/schema", nil),
            ("GET", "/schema/h2", nil),
            ("GET", "/tables", nil),
            ("GET", "/tables/h2/rows?_order=id", nil),
            ("GET", "/tables/h2/rows/1", nil),
            ("GET", "/tables/h2/rows/99", nil),
            ("GET", "/tables/h2/count", nil),
            ("PATCH", "/tables/h2/rows/2", #"{"name": "deux"}"#),
            ("POST", "/tables/h2/rows?on_conflict=update", #"[{"id": 3, "name": "three"}]"#),
            ("DELETE", "/tables/h2/rows/3", nil),
            ("GET", "/nowhere", nil),
            ("PUT", "/query", nil),
        ]
        for (method, path, body) in requests {
            let overH2 = try curl(server, "--http2-prior-knowledge", method, path, json: body)
            let overH1 = try curl(server, "--http1.1", method, path, json: body)
            #expect(overH2.version == "2", "\(method) \(path)")
            #expect(overH1.version == "1.1")
            #expect(overH2.status == overH1.status, "\(method) \(path)")
            #expect(overH2.body == overH1.body, "\(method) \(path)")
        }
        let health = try curl(server, "--http2-prior-knowledge", "GET", "/health")
        #expect(health.status == 200 && health.body.contains("\"status\""), "\(health)")
        let head = try curl(server, "--http2-prior-knowledge", "HEAD", "/health")
        #expect(head.status == 200 && head.version == "2")
        let metrics = try curl(server, "--http2-prior-knowledge", "GET", "/metrics")
        #expect(metrics.body.contains(#"endpoint="/query",status="200",protocol="h2""#), "\(metrics.body.prefix(2000))")
        #expect(metrics.body.contains(#"endpoint="/query",status="200",protocol="http/1.1""#))
        // The request log's sink writes in batches (at most 20 ms apart).
        usleep(300_000)
        #expect(server.stderrLines.contains { $0.contains("path=/query protocol=h2 status=200") })
    }

    @Test func upgrade_switchesToHTTP2_andAnswersTheFirstRequestOnStream1() throws {
        let (server, directory) = try start()
        defer { _ = server.kill() }
        _ = directory
        let health = try curl(server, "--http2", "GET", "/health")
        #expect(health.version == "2", "\(health)")
        #expect(health.status == 200)
        let query = try curl(server, "--http2", "POST", "/query", json: #"{"sql": "SELECT 40 + 2 AS answer"}"#)
        #expect(query.status == 200)
        #expect(query.body.contains(#""answer":42"#), "\(query)")
    }

    @Test func unixSocketListener_servesHTTP2Too() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-h2unix")
        let socket = directory.path("s.sock").path
        let server = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--database", directory.path("db.sqlite").path, "--host", "127.0.0.1", "--port", "0",
                "--unix-socket", socket,
            ]
        )
        defer { _ = server.kill() }
        let curl = try #require(HTTP2Tools.curl)
        let result = try curl.run([
            "-s", "-S", "--http2-prior-knowledge", "--unix-socket", socket, "-w", "\n%{http_version} %{response_code}",
            "-H", "Content-Type: application/json", "--data-binary", #"{"sql": "SELECT 6 * 7 AS answer"}"#,
            "http://localhost/query",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\n2 200"), "\(result.stdout)")
        #expect(result.stdout.contains(#""answer":42"#))
    }

    @Test func http2Off_preface400_upgradeIgnored() throws {
        let (server, directory) = try start(["SQLITED_LISTEN_HTTP2": "false"])
        defer { _ = server.kill() }
        _ = directory
        let upgrade = try curl(server, "--http2", "GET", "/health")
        #expect(upgrade.version == "1.1")
        #expect(upgrade.status == 200)
        // The preface is then an HTTP/1.1 request line of HTTP major version 2: 505 HTTP_VERSION_NOT_SUPPORTED, as
        // API.md's error table gives for any major version other than 1 (docs/http2.md says so).
        let client = try server.makeClient()
        try client.sendRaw("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 505, "\(response.status)")
        #expect(response.bodyText.contains(#""code":"HTTP_VERSION_NOT_SUPPORTED""#), "\(response.bodyText)")
    }
}
