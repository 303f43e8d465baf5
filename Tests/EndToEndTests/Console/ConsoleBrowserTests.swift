import Foundation
import SQLiteService
import Testing

/// The web console (issue #31) in a real browser: Debian's `chromium` and `chromium-driver` driven by PyPI's
/// `selenium` (`.ci/run` installs them; in CI the suite requires them) against the real binary with three tokens.
/// `console_browser.py` (beside this file) walks the page: the token prompt, the table browser over three pages,
/// values (NULL, empty text, 64-bit integers, a REAL, a blob, a long text), filters and sort, HTML stored in a row,
/// a table name and a column name shown as text with nothing run, an edit and a delete with the write token, the
/// CSV export, the SQL editor with its errors, the status panel's charts, the tabs by keyboard, a phone's width,
/// and the console of a server where it is off.
@Suite(.enabled(if: ConsoleBrowser.available, "chromium, chromium-driver or selenium (PyPI) is not installed"))
struct ConsoleBrowserTests {
    @Test func console_inChromium() throws {
        let python = try #require(ConsoleBrowser.python, "chromium, chromedriver and selenium are required (.ci/run)")
        let run = try ConsoleBrowser.Run()
        // `make screenshots`: the same walk, saving its pictures into docs/.
        let screenshots = ProcessInfo.processInfo.environment["CONSOLE_SCREENSHOTS"].map { ["--screenshots", $0] }
        let result = try run.drive(python, extra: screenshots ?? [])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr.suffix(4000))")
        #expect(result.stdout.contains("PASSED"), "\(result.stdout)")

        // What the browser changed is in the database: row 8 edited, row 23 deleted.
        let client = try run.server.makeClient()
        let bearer = [("Authorization", "Bearer \(ConsoleBrowser.writeToken)")]
        let row = try client.get("/tables/people/rows/8", headers: bearer).json()
        #expect(row["row"]?["name"]?.stringValue == "Edited <i>name</i>")
        #expect(row["row"]?["note"]?.isNull == true)
        #expect(try client.get("/tables/people/rows/23", headers: bearer).status == 404)
        #expect(run.server.isRunning && run.off.isRunning)
    }
}

/// The browser harness: the servers, their data and `console_browser.py`.
enum ConsoleBrowser {
    static let readToken = "console-read-0123456789abcdef"
    static let writeToken = "console-write-0123456789abcdef"
    static let adminToken = "console-admin-0123456789abcdef"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("console_browser.py")

    /// python3 when it has selenium and the system has chromium and its driver.
    static let python: ExternalTool? = {
        guard let python = ExternalTool("python3"),
            ExternalTool("chromium") != nil || FileManager.default.fileExists(atPath: "/usr/bin/chromium"),
            ExternalTool("chromedriver") != nil || FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"),
            let probe = try? python.run(["-c", "import selenium"]), probe.status == 0
        else { return nil }
        return python
    }()

    /// In CI the suite runs whatever: a missing browser is then a failure, not a skip.
    static var available: Bool { python != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    /// The data the script expects: `people` (23 rows, an index on `age`) and a table whose name and column hold
    /// HTML.
    static let setup = [
        """
        CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, note TEXT, big INTEGER, score REAL,
        photo BLOB)
        """,
        "CREATE INDEX people_by_age ON people(age)",
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 23)
        INSERT INTO people SELECT i, 'Person ' || i, 20 + i, 'note ' || i, i, NULL, NULL FROM n
        """,
        "UPDATE people SET note = NULL WHERE id = 1",
        "UPDATE people SET note = '' WHERE id = 2",
        "UPDATE people SET big = 9223372036854775807 WHERE id = 3",
        "UPDATE people SET big = -9007199254740993 WHERE id = 4",
        "UPDATE people SET score = 1.0 WHERE id = 5",
        "UPDATE people SET photo = x'010203' WHERE id = 6",
        "UPDATE people SET note = 'long ' || printf('%.5000c', 'x') WHERE id = 20",
        #"UPDATE people SET name = '<img src=x onerror="window.__xss=1;alert(1)">' WHERE id = 7"#,
        #"CREATE TABLE "<b>evil</b>"(id INTEGER PRIMARY KEY, "<img src=x onerror=""window.__xss=2"">" TEXT)"#,
        #"INSERT INTO "<b>evil</b>" VALUES (1, '<script>window.__xss=3</script>')"#,
    ]

    /// Two servers (the console on, with tokens and data; the console off) and a downloads directory.
    final class Run {
        let directory: TemporaryDirectory
        let server: ServerProcess
        let off: ServerProcess

        init() throws {
            directory = try TemporaryDirectory(prefix: "sqlited-console")
            let config = directory.path("sqlited.yaml")
            let entries = [
                ("viewer", "read", readToken), ("editor", "write", writeToken), ("ops", "admin", adminToken),
            ]
            .map { "    - \"\($0.0):\($0.1):\(TokenStore.sha256Hex(of: $0.2))\"\n" }.joined()
            try "auth:\n  tokens:\n\(entries)".write(to: config, atomically: true, encoding: .utf8)
            server = try ServerProcess.startSqlited(
                directory: directory.url,
                extraArguments: ["--config", config.path]
            )
            let offDirectory = directory.path("off")
            try FileManager.default.createDirectory(at: offDirectory, withIntermediateDirectories: true)
            let offConfig = directory.path("off.yaml")
            try "console:\n  enabled: false\n".write(to: offConfig, atomically: true, encoding: .utf8)
            off = try ServerProcess.startSqlited(directory: offDirectory, extraArguments: ["--config", offConfig.path])
            let client = try server.makeClient()
            let bearer = [("Authorization", "Bearer \(writeToken)")]
            for sql in setup {
                let body = JSONValue.object([.init(key: "sql", value: .string(sql))]).serialized
                let response = try client.postJSON("/update", text: body, headers: bearer)
                try #require(response.status == 200, "\(sql): \(response.bodyText)")
            }
            try FileManager.default.createDirectory(at: directory.path("downloads"), withIntermediateDirectories: true)
        }

        /// Runs the script against the servers (`extra`: more arguments, such as `--screenshots DIR`).
        func drive(_ python: ExternalTool, extra: [String]) throws -> ExternalTool.Result {
            try python.run(
                [
                    script.path, "--url", server.baseURL, "--off-url", off.baseURL, "--read", readToken,
                    "--write", writeToken, "--admin", adminToken, "--downloads", directory.path("downloads").path,
                ] + extra,
                timeoutSeconds: 240
            )
        }

        deinit {
            _ = server.kill()
            _ = off.kill()
        }
    }
}
