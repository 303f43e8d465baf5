import Foundation
import Testing

/// The console as the real binary serves it over TCP (no browser needed): the redirect, the page and every file
/// with its type and security fields, 304 on a known entity tag, and `console.enabled: false` → 404.
@Suite struct ConsoleEndToEndTests {
    static let files = ["console.css", "app.js", "api.js", "json.js", "dom.js", "tables.js", "sql.js", "status.js"]

    @Test func console_isServedWithItsFields_andOffIs404() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-console-e2e")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        defer { _ = server.kill() }
        let client = try server.makeClient()
        let root = try client.get("/")
        #expect(root.status == 302)
        #expect(root.header("Location") == "/ui")
        let page = try client.get("/ui")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.bodyText.contains(#"<script type="module" src="/ui/app.js"></script>"#))
        for name in Self.files {
            let response = try client.get("/ui/\(name)")
            #expect(response.status == 200, "\(name)")
            let type = name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
            #expect(response.header("Content-Type") == type, "\(name)")
            #expect(response.header("Content-Security-Policy") == "default-src 'self'; frame-ancestors 'none'")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Cache-Control") == "no-cache")
            let etag = try #require(response.header("ETag"), "\(name)")
            let again = try client.get("/ui/\(name)", headers: [("If-None-Match", etag)])
            #expect(again.status == 304, "\(name)")
            #expect(again.body.isEmpty)
        }
        #expect(try client.get("/ui/missing.js").status == 404)

        let offDirectory = try TemporaryDirectory(prefix: "sqlited-console-off")
        let off = try ServerProcess.startSqlited(
            directory: offDirectory.url,
            extraArguments: ["--config", try Self.offConfig(in: offDirectory).path]
        )
        defer { _ = off.kill() }
        let offClient = try off.makeClient()
        for path in ["/", "/ui", "/ui/app.js"] {
            let response = try offClient.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(try response.json()["error"]?["code"]?.stringValue == "NOT_FOUND")
        }
        #expect(try offClient.get("/health").status == 200)
    }

    static func offConfig(in directory: TemporaryDirectory) throws -> URL {
        let file = directory.path("sqlited.yaml")
        try "console:\n  enabled: false\n".write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}
