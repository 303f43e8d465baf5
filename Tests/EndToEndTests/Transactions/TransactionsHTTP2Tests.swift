import Foundation
import Testing

/// `/transactions` over HTTP/2 (curl with prior knowledge) as over HTTP/1.1, one transaction used from both
/// protocols' connections in turn.
@Suite(.enabled(if: HTTP2Tools.curlAvailable, "curl with HTTP2 support is not installed (.ci/run installs it)"))
struct TransactionsHTTP2Tests {
    /// One curl request; its HTTP version, status and body.
    private func curl(
        _ server: ServerProcess,
        _ mode: String,
        _ path: String,
        json: String? = nil
    ) throws -> (
        version: String, status: Int, body: String
    ) {
        let curl = try #require(HTTP2Tools.curl, "curl with HTTP2 support is required")
        var arguments = ["-s", "-S", mode, "-X", "POST", "-o", "-", "-w", "\n%{http_version} %{response_code}"]
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        arguments.append(server.baseURL + path)
        let result = try curl.run(arguments, timeoutSeconds: 30)
        try #require(result.status == 0, "curl \(arguments): \(result.stderr)")
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let trailer = lines.removeLast().split(separator: " ")
        return (String(trailer.first ?? ""), Int(trailer.last ?? "") ?? 0, lines.joined(separator: "\n"))
    }

    /// Checks the open, a read, a write and the commit over HTTP/2, a step over HTTP/1.1 on another connection in
    /// between, and the same answers as over HTTP/1.1 (201, 404 afterwards).
    @Test func transactionOverHTTP2_andHTTP1InTurn() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-txn-h2")
        let server = try startTransactionServer(directory)
        defer { _ = server.kill() }
        let h1 = try server.makeClient()
        try h1.update("CREATE TABLE h(x INTEGER)")
        let opened = try curl(server, "--http2-prior-knowledge", "/transactions", json: #"{"mode": "immediate"}"#)
        #expect(opened.version == "2")
        #expect(opened.status == 201)
        var parser = JSONValueParser(bytes: Array(opened.body.utf8))
        let id = try #require(try parser.parseDocument()["id"]?.stringValue)
        let write = try curl(
            server,
            "--http2-prior-knowledge",
            "/transactions/\(id)",
            json: #"{"sql": "INSERT INTO h VALUES (1)"}"#
        )
        #expect(write.status == 200)
        #expect(write.body == #"{"changes":1,"last_insert_rowid":1}"#)
        #expect(try h1.step(id, #"{"sql": "INSERT INTO h VALUES (2)"}"#).status == 200)
        let read = try curl(
            server,
            "--http2-prior-knowledge",
            "/transactions/\(id)",
            json: #"{"sql": "SELECT sum(x) AS s FROM h"}"#
        )
        #expect(read.body == #"{"columns":["s"],"types":[null],"rows":[{"s":3}]}"#)
        #expect(try h1.scalarInt("SELECT count(*) FROM h") == 0)
        let commit = try curl(server, "--http2-prior-knowledge", "/transactions/\(id)/commit")
        #expect(commit.version == "2")
        #expect(commit.body == #"{"committed":true}"#)
        #expect(try h1.scalarInt("SELECT sum(x) FROM h") == 3)
        let gone = try curl(server, "--http2", "/transactions/\(id)/rollback")
        #expect(gone.status == 404)
        #expect(gone.body.contains("NO_SUCH_TRANSACTION"))
    }
}
