import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile requests against the real `sqlited` binary: each gets its exact status and code, and afterwards the
/// server still answers `/health`, the seeded rows and the schema are unchanged, and no file appeared beside the
/// database.
@Suite(.serialized) struct HostileRequestTests {
    /// One hostile request and the answer it must get.
    struct HostileCase: Sendable, CustomStringConvertible {
        var description: String
        var path: String
        var body: @Sendable () -> [UInt8]
        var status: Int
        var code: String

        /// A statement object `{"sql": sql}` plus extra top-level members written as JSON text.
        static func sql(
            _ name: String,
            _ path: String,
            _ sql: String,
            extra: String = "",
            status: Int,
            code: String
        ) -> HostileCase {
            HostileCase(
                description: name,
                path: path,
                body: {
                    Array(("{\"sql\":" + JSONValue.string(sql).serialized + extra + "}").utf8)
                },
                status: status,
                code: code
            )
        }

        static func raw(
            _ name: String,
            _ path: String,
            status: Int,
            code: String,
            _ body: @escaping @Sendable () -> [UInt8]
        ) -> HostileCase {
            HostileCase(description: name, path: path, body: body, status: status, code: code)
        }
    }

    static let cases: [HostileCase] = [
        // Files: nothing outside the database may be read or written.
        .sql("ATTACH /etc/passwd", "/update", "ATTACH DATABASE '/etc/passwd' AS p", status: 403, code: "SQLITE_AUTH"),
        .sql("ATTACH :memory:", "/update", "ATTACH ':memory:' AS m", status: 403, code: "SQLITE_AUTH"),
        .sql("ATTACH on a reader", "/query", "ATTACH 'file:x?mode=memory' AS m", status: 403, code: "SQLITE_AUTH"),
        .sql("DETACH main", "/update", "DETACH DATABASE main", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "VACUUM INTO a path",
            "/update",
            "VACUUM INTO '\(vacuumTargetPlaceholder)'",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql("VACUUM", "/update", "VACUUM", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "load_extension",
            "/query",
            "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "fts3_tokenizer with a pointer",
            "/query",
            "SELECT fts3_tokenizer('simple', x'4141414141414141')",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "fts3_tokenizer on the writer",
            "/update",
            "SELECT fts3_tokenizer('simple', x'0000000000000000')",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "fts3_tokenizer address leak",
            "/query",
            "SELECT hex(fts3_tokenizer('simple'))",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "sqlite_stmt shows other clients' SQL",
            "/query",
            "SELECT sql FROM sqlite_stmt",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "writefile (shell-only function)",
            "/update",
            "SELECT writefile('/tmp/sqlited-pwned', 'x')",
            status: 400,
            code: "SQLITE_ERROR"
        ),
        // Pragmas that change the database's settings or reveal paths.
        .sql("PRAGMA writable_schema=1", "/update", "PRAGMA writable_schema = 1", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "PRAGMA journal_mode=DELETE",
            "/update",
            "PRAGMA journal_mode = DELETE",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql("PRAGMA synchronous=OFF", "/update", "PRAGMA main.synchronous = OFF", status: 403, code: "SQLITE_AUTH"),
        .sql("PRAGMA query_only=0 via /query", "/query", "PRAGMA query_only = 0", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "PRAGMA query_only(false) via /query",
            "/query",
            "PRAGMA main.query_only(false)",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql("PRAGMA database_list", "/query", "PRAGMA database_list", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "pragma_database_list()",
            "/query",
            "SELECT file FROM pragma_database_list",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql(
            "PRAGMA temp_store_directory",
            "/update",
            "PRAGMA temp_store_directory = '/tmp'",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        // Writes through a reader.
        .sql(
            "INSERT … RETURNING via /query",
            "/query",
            "INSERT INTO t VALUES (3, 'c') RETURNING id",
            status: 400,
            code: "READONLY_STATEMENT"
        ),
        .sql(
            "CTE then DELETE via /query",
            "/query",
            "WITH x AS (SELECT 1) DELETE FROM t WHERE id IN x",
            status: 400,
            code: "READONLY_STATEMENT"
        ),
        .sql(
            "write through an INSTEAD OF trigger via /query",
            "/query",
            "INSERT INTO tv VALUES (9, 'z')",
            status: 400,
            code: "READONLY_STATEMENT"
        ),
        .sql(
            "CREATE TEMP TRIGGER",
            "/update",
            "CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN DELETE FROM t; END",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .sql("CREATE TEMP TABLE via /query", "/query", "CREATE TEMP TABLE x(a)", status: 403, code: "SQLITE_AUTH"),
        .sql(
            "CREATE VIRTUAL TABLE temp.x",
            "/update",
            "CREATE VIRTUAL TABLE temp.x USING fts5(a)",
            status: 403,
            code: "SQLITE_AUTH"
        ),
        .raw("ATTACH inside a /batch script", "/batch", status: 403, code: "SQLITE_AUTH") {
            Array(#"{"script": "ATTACH ':memory:' AS m; DELETE FROM t;"}"#.utf8)
        },
        // Every write runs inside a group commit transaction, where SQLite would refuse VACUUM before the policy is
        // consulted; the policy refuses it by its text first (403), the DELETE before it is rolled back and no file
        // is written.
        .raw("VACUUM INTO inside /transaction", "/transaction", status: 403, code: "SQLITE_AUTH") {
            Array(#"{"statements": [{"sql": "DELETE FROM t"}, {"sql": "VACUUM INTO '/tmp/x.sqlite'"}]}"#.utf8)
        },
        // Time and memory.
        .sql(
            "recursive CTE without end",
            "/query",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            extra: #","timeout_ms":300"#,
            status: 400,
            code: "TIMEOUT"
        ),
        .sql("zeroblob(2000000000)", "/query", "SELECT zeroblob(2000000000)", status: 400, code: "SQLITE_TOOBIG"),
        .sql(
            "randomblob of gigabytes",
            "/query",
            "SELECT randomblob(5000000000)",
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .sql(
            "huge printf precision",
            "/query",
            "SELECT printf('%.*c', 2147483647, 'x')",
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .sql("huge printf width", "/query", "SELECT printf('%2000000000d', 1)", status: 400, code: "SQLITE_TOOBIG"),
        .sql(
            "replace() on megabytes",
            "/query",
            "SELECT replace(printf('%.*c', 10000000, 'a'), printf('%.*c', 5000000, 'a') || 'b', '')",
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .sql(
            "quadratic trim()",
            "/query",
            "SELECT trim(printf('%.*c', 100000, 'a'), printf('%.*c', 100000, 'b') || 'a')",
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .sql(
            "200 KB LIKE pattern",
            "/query",
            "SELECT v LIKE ? FROM t",
            extra: ",\"params\":[\"%" + String(repeating: "a%", count: 100_000) + "\"]",
            status: 400,
            code: "SQLITE_ERROR"
        ),
        .sql(
            "200 columns of 10 MB each",
            "/query",
            "SELECT " + Array(repeating: "zeroblob(10000000)", count: 200).joined(separator: ", "),
            extra: #","shape":"arrays""#,
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .sql(
            "a thousand rows of 10 MB each",
            "/query",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) SELECT zeroblob(10000000) FROM c",
            extra: #","shape":"arrays""#,
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        // Sizes and depths.
        .sql(
            "expression nested 5,000 deep",
            "/query",
            "SELECT " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000),
            status: 400,
            code: "SQLITE_ERROR"
        ),
        .sql(
            "operator chain 5,000 deep",
            "/query",
            "SELECT " + String(repeating: "-", count: 5000) + "1",
            status: 400,
            code: "SQLITE_ERROR"
        ),
        .sql(
            "50,000 parameters",
            "/query",
            "SELECT " + Array(repeating: "?", count: 50_000).joined(separator: ","),
            extra: ",\"params\":[" + Array(repeating: "1", count: 50_000).joined(separator: ",") + "]",
            status: 400,
            code: "SQLITE_ERROR"
        ),
        .sql(
            "9 MiB statement",
            "/query",
            "SELECT '" + String(repeating: "x", count: 9 * 1024 * 1024) + "'",
            status: 400,
            code: "SQLITE_TOOBIG"
        ),
        .raw("JSON nested 100,000 deep", "/query", status: 400, code: "INVALID_JSON") {
            Array(
                ("{\"sql\":\"SELECT ?\",\"params\":" + String(repeating: "[", count: 100_000)
                    + String(repeating: "]", count: 100_000) + "}").utf8
            )
        },
        .raw("a million-element parameter array", "/query", status: 400, code: "BIND_ERROR") {
            Array(
                ("{\"sql\":\"SELECT ?\",\"params\":["
                    + Array(repeating: "0", count: 1_000_000)
                    .joined(separator: ",") + "]}").utf8
            )
        },
        .raw("invalid UTF-8 in the body", "/query", status: 400, code: "INVALID_JSON") {
            Array(#"{"sql": "SELECT '"#.utf8) + [0xC3, 0x28, 0xFF] + Array(#"'"}"#.utf8)
        },
        .raw("NUL inside sql", "/update", status: 400, code: "INVALID_REQUEST") {
            Array(#"{"sql": "SELECT 1\u0000; DROP TABLE t"}"#.utf8)
        },
    ]

    /// Replaced in SQL by a path inside the test's own directory.
    static let vacuumTargetPlaceholder = "@VACUUM_TARGET@"

    /// Each hostile request gets its exact status and code; the server, the data and the directory are unharmed.
    @Test(arguments: cases)
    func hostileRequest_isRefusedAndHarmless(_ hostile: HostileCase) throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-hostile")
        let server = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: ["--database", directory.path("db.sqlite").path, "--host", "127.0.0.1", "--port", "0"]
        )
        defer { _ = server.kill() }
        let client = try HTTPTestClient(baseURL: server.baseURL, timeoutSeconds: 60)

        let seed = try client.postJSON(
            "/batch",
            text: #"""
                {"script": "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'); CREATE VIEW tv AS SELECT id, v FROM t; CREATE TRIGGER tv_insert INSTEAD OF INSERT ON tv BEGIN INSERT INTO t VALUES (NEW.id, NEW.v); END;"}
                """#
        )
        try #require(seed.status == 200, "seeding: \(seed.bodyText)")
        let schemaBefore = try snapshot(client, "SELECT type, name, sql FROM sqlite_schema ORDER BY name")
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()

        let target = directory.path("stolen.sqlite").path
        var body = hostile.body()
        if let text = String(bytes: body, encoding: .utf8), text.contains(Self.vacuumTargetPlaceholder) {
            body = Array(text.replacingOccurrences(of: Self.vacuumTargetPlaceholder, with: target).utf8)
        }
        let response = try client.request(
            method: "POST",
            path: hostile.path,
            headers: [("Content-Type", "application/json")],
            body: body
        )
        #expect(response.status == hostile.status, "\(hostile): \(response.bodyText.prefix(300))")
        #expect(response.errorCode == hostile.code, "\(hostile): \(response.bodyText.prefix(300))")

        let health = try client.get("/health")
        #expect(health.status == 200)
        #expect(try snapshot(client, "SELECT id, v FROM t ORDER BY id") == #"[[1,"a"],[2,"b"]]"#)
        #expect(try snapshot(client, "SELECT type, name, sql FROM sqlite_schema ORDER BY name") == schemaBefore)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/x.sqlite") || hostile.path != "/transaction")
        let filesAfter = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(filesAfter == filesBefore)
    }

    /// The suite has the size the issue asks for.
    @Test func suite_hasAtLeastThirtyCases() {
        #expect(Self.cases.count >= 30)
    }

    /// The rows of `sql` as compact JSON (`shape: arrays`).
    private func snapshot(_ client: HTTPTestClient, _ sql: String) throws -> String {
        let response = try client.postJSON(
            "/query",
            text: "{\"sql\":" + JSONValue.string(sql).serialized + ",\"shape\":\"arrays\"}"
        )
        try #require(response.status == 200, "\(response.bodyText)")
        let rows = try #require(try response.json()["rows"])
        return rows.serialized
    }
}
