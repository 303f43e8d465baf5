import HTTPServer
import Testing

@testable import SQLiteService

/// The Tables API's roles, metrics labels and request log, at the service.
@Suite struct TablesServiceTests {
    /// Reads need `read`, writes `write`: a read token cannot write through these endpoints.
    @Test func roles_followTheMethod() {
        for path in ["/tables", "/tables/t/rows", "/tables/t/rows/1", "/tables/t/count"] {
            #expect(SQLiteService.requiredRole(forPath: path, method: "GET") == .read)
            #expect(SQLiteService.requiredRole(forPath: path, method: "HEAD") == .read)
        }
        for method in ["POST", "PATCH", "DELETE", "PUT"] {
            #expect(SQLiteService.requiredRole(forPath: "/tables/t/rows", method: method) == .write)
            #expect(SQLiteService.requiredRole(forPath: "/tables/t/rows/1", method: method) == .write)
        }
    }

    /// Metrics and the request log name the endpoint template, never the table name or the key (a value).
    @Test func metricsAndLog_nameTheTemplate() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE secret_table(id INTEGER PRIMARY KEY, v)"}"#)
        fixture.send("POST", "/tables/secret_table/rows", json: #"{"rows": [{"id": 4242, "v": 1}]}"#)
        #expect(fixture.send("GET", "/tables/secret_table/rows/4242").status.code == 200)
        #expect(fixture.send("GET", "/tables/secret_table/count").status.code == 200)
        #expect(fixture.send("GET", "/tables").status.code == 200)
        let text = fixture.service.options.metrics?.renderText() ?? ""
        for label in ["/tables/{table}/rows/{key}", "/tables/{table}/rows", "/tables/{table}/count", "/tables"] {
            #expect(text.contains(#"endpoint="\#(label)""#), "\(label)")
        }
        #expect(!text.contains("secret_table"))
        let paths = fixture.logs.records.compactMap { $0.metadata["path"] }
        #expect(paths.contains("/tables/{table}/rows/{key}"))
        #expect(!paths.contains { $0.contains("4242") || $0.contains("secret_table") })
    }
}
