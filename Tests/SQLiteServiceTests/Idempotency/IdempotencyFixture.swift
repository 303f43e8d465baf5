import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

extension ServiceFixture {
    /// Sends a request with an `Idempotency-Key` (nil: none) and a bearer token (nil: none) to the service's handler.
    @discardableResult
    func send(
        _ method: String,
        _ target: String,
        json: String?,
        key: String?,
        token: String? = nil
    ) -> HTTPResponse {
        service.handle(Self.request(method, target, json: json, key: key, token: token))
    }

    static func request(
        _ method: String,
        _ target: String,
        json: String?,
        key: String?,
        token: String? = nil
    )
        -> HTTPRequest
    {
        var headers = HTTPHeaders()
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        if let key { headers.add(name: "Idempotency-Key", value: key) }
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array((json ?? "").utf8))
    }

    /// The count of rows of `table` (0 when it does not exist), read on a connection of its own without the
    /// clients' policy (so the server's tables too).
    func count(_ table: String, in path: String? = nil) throws -> Int64 {
        var configuration = Configuration()
        configuration.openOptions = [.readOnly, .noMutex]
        let db = try Database(path: path ?? self.path("app.sqlite"), configuration: configuration)
        defer { try? db.close() }
        guard try db.int64(sql: "SELECT count(*) FROM sqlite_schema WHERE name = '\(table)'") == 1 else { return 0 }
        return try db.int64(sql: "SELECT count(*) FROM \(table)") ?? -1
    }
}

/// The `Idempotent-Replayed` field of a response.
func replayed(_ response: HTTPResponse) -> String? {
    response.headers.values(for: "Idempotent-Replayed").first
}
