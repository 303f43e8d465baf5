import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService

/// A service over a fresh database in its own temporary directory, prepared like the daemon prepares it, with a
/// seeded table `t(id INTEGER PRIMARY KEY, v TEXT)` holding rows 1 `a` and 2 `b`.
final class SecurityFixture {
    let directory: URL
    let pool: DatabasePool
    let service: SQLiteService

    /// Tokens of the standard store, by role (see ``standardStore``).
    static let readToken = "read-token-0123456789abcdef"
    static let writeToken = "write-token-0123456789abcdef"
    static let adminToken = "admin-token-0123456789abcdef"

    /// One token per role, named after the role.
    static func standardStore() throws -> TokenStore {
        try TokenStore(entries: [
            TokenStore.Entry(name: "reader", sha256Hex: TokenStore.sha256Hex(of: readToken), role: .read),
            TokenStore.Entry(name: "writer", sha256Hex: TokenStore.sha256Hex(of: writeToken), role: .write),
            TokenStore.Entry(name: "admin", sha256Hex: TokenStore.sha256Hex(of: adminToken), role: .admin),
        ])
    }

    init(limits: ServiceLimits = ServiceLimits()) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlited-security-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase = { db in
            SQLiteService.prepareConnection(db, role: db.isReadOnly ? .reader : .writer, limits: limits)
        }
        pool = try DatabasePool(
            path: directory.appendingPathComponent("test.sqlite").path,
            configuration: .init(configuration: configuration)
        )
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            try db.execute(sql: "INSERT INTO t(id, v) VALUES (1, 'a'), (2, 'b')")
        }
        service = SQLiteService(pool: pool, limits: limits, version: "test", logger: Logger(label: "security-test"))
        service.isAvailable = true
    }

    deinit {
        try? pool.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends a request to the service in process.
    func send(
        _ method: String,
        _ target: String,
        json: String? = nil,
        headers: [(String, String)] = []
    ) -> HTTPResponse {
        var fields = headers
        if json != nil { fields.append(("Content-Type", "application/json")) }
        let request = HTTPRequest(
            method: method,
            target: target,
            headers: HTTPHeaders(fields),
            body: Array((json ?? "").utf8)
        )
        return service.handle(request)
    }

    /// The rows of `t` as `id:v` strings, read directly from the pool.
    func seededRows() throws -> [String] {
        try pool.read { db in
            let cursor = try db.query(sql: "SELECT id, v FROM t ORDER BY id")
            var rows: [String] = []
            while let row = try cursor.next() {
                rows.append("\(row.int64(at: 0) ?? -1):\(row.string(at: 1) ?? "NULL")")
            }
            return rows
        }
    }
}

extension HTTPResponse {
    /// The body as text.
    var bodyText: String {
        guard case .bytes(let bytes) = body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `"code"` of an error body, found textually (the bodies are produced by the service's own writer).
    var errorCode: String? {
        let text = bodyText
        guard let range = text.range(of: "\"code\":\"") else { return nil }
        let rest = text[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
