import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import SQLitedClient

/// The hand-written layer's middlewares, against a scripted transport (no server): retries, keys, errors.
@Suite struct MiddlewareTests {
    /// Answers with the scripted responses in turn and records every request it is sent.
    final class ScriptedTransport: ClientTransport, @unchecked Sendable {
        struct Sent {
            var request: HTTPRequest
            var body: [UInt8]
        }
        private let lock = NSLock()
        private var script: [(status: Int, headers: HTTPFields, body: String)]
        private(set) var sent: [Sent] = []

        init(_ script: [(status: Int, headers: HTTPFields, body: String)]) { self.script = script }

        func send(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let bytes = if let body { try await [UInt8](collecting: body, upTo: 1 << 20) } else { [UInt8]() }
            let next = lock.withLock {
                sent.append(Sent(request: request, body: bytes))
                return script.removeFirst()
            }
            var headers = next.headers
            headers[.contentType] = "application/json"
            return (HTTPResponse(status: .init(code: next.status), headerFields: headers), HTTPBody(next.body))
        }
    }

    /// Records the waits instead of waiting.
    final class Sleeps: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Duration] = []
        var all: [Duration] { lock.withLock { recorded } }
        func record(_ duration: Duration) { lock.withLock { recorded.append(duration) } }
    }

    static let busy = (
        status: 503, headers: HTTPFields([HTTPField(name: .retryAfter, value: "2")]),
        body: #"{"error": {"code": "SQLITE_BUSY", "message": "database is locked", "sqlite_code": 5}}"#
    )
    static let updated = (status: 200, headers: HTTPFields(), body: #"{"changes": 1, "last_insert_rowid": 7}"#)

    func client(_ transport: ScriptedTransport, sleeps: Sleeps, attempts: Int = 5) -> SQLitedClient {
        let policy = RetryPolicy(maxAttempts: attempts, maxDelay: .seconds(5)) { sleeps.record($0) }
        return SQLitedClient(
            serverURL: URL(string: "http://server")!,
            token: "t0ken",
            retry: policy,
            transport: transport
        )
    }

    @Test func a503WithRetryAfterIsRetriedWithTheSameBodyAndKey() async throws {
        let transport = ScriptedTransport([Self.busy, Self.busy, Self.updated])
        let sleeps = Sleeps()
        let result = try await client(transport, sleeps: sleeps).update("INSERT INTO t VALUES (?)", [1])
        #expect(result == .init(changes: 1, lastInsertRowID: 7))
        #expect(sleeps.all == [.seconds(2), .seconds(2)])
        #expect(transport.sent.count == 3)
        let keys = Set(transport.sent.map { $0.request.headerFields[.idempotencyKey] })
        #expect(keys.count == 1 && keys.first! != nil)
        #expect(Set(transport.sent.map(\.body)).count == 1)
        #expect(transport.sent.allSatisfy { $0.request.headerFields[.authorization] == "Bearer t0ken" })
    }

    /// The same key still running elsewhere (409 `IDEMPOTENCY_IN_PROGRESS`, with `Retry-After`) is waited out;
    /// a constraint's 409 (no `Retry-After`) is not retried.
    @Test func aKeyInProgressIsWaitedOut() async throws {
        let inProgress = (
            status: 409, headers: HTTPFields([HTTPField(name: .retryAfter, value: "1")]),
            body: #"{"error": {"code": "IDEMPOTENCY_IN_PROGRESS", "message": "a request with this key is running"}}"#
        )
        let transport = ScriptedTransport([inProgress, Self.updated])
        let sleeps = Sleeps()
        #expect(try await client(transport, sleeps: sleeps).update("DELETE FROM t").changes == 1)
        #expect(sleeps.all == [.seconds(1)])
        let constraint = (
            status: 409, headers: HTTPFields(),
            body: #"{"error": {"code": "SQLITE_CONSTRAINT_UNIQUE", "message": "UNIQUE constraint failed: t.x"}}"#
        )
        let once = ScriptedTransport([constraint])
        let error = await #expect(throws: SQLitedError.self) {
            try await client(once, sleeps: Sleeps()).update("INSERT INTO t VALUES (1)")
        }
        #expect(error?.code == "SQLITE_CONSTRAINT_UNIQUE" && once.sent.count == 1)
    }

    @Test func theCallersKeyIsSent() async throws {
        let transport = ScriptedTransport([Self.updated])
        _ = try await client(transport, sleeps: Sleeps()).update("DELETE FROM t", idempotencyKey: "order-42")
        #expect(transport.sent.first?.request.headerFields[.idempotencyKey] == "order-42")
    }

    @Test func readsCarryNoKey() async throws {
        let transport = ScriptedTransport([(200, HTTPFields(), #"{"columns": ["x"], "rows": [{"x": 1}]}"#)])
        struct Row: Decodable { var x: Int }
        _ = try await client(transport, sleeps: Sleeps()).query("SELECT 1 AS x", as: Row.self)
        #expect(transport.sent.first?.request.headerFields[.idempotencyKey] == nil)
    }

    @Test func theWaitIsCappedAndTheTriesCounted() async throws {
        var long = Self.busy
        long.headers = HTTPFields([HTTPField(name: .retryAfter, value: "600")])
        let transport = ScriptedTransport([long, long, long])
        let sleeps = Sleeps()
        let error = await #expect(throws: SQLitedError.self) {
            try await client(transport, sleeps: sleeps, attempts: 3).update("DELETE FROM t")
        }
        #expect(error == SQLitedError(status: 503, code: "SQLITE_BUSY", message: "database is locked", sqliteCode: 5))
        #expect(sleeps.all == [.seconds(5), .seconds(5)])
        #expect(transport.sent.count == 3)
    }

    @Test func a503WithoutRetryAfterIsNotRetried() async throws {
        var unavailable = Self.busy
        unavailable.headers = HTTPFields()
        let transport = ScriptedTransport([unavailable])
        await #expect(throws: SQLitedError.self) {
            try await client(transport, sleeps: Sleeps()).update("DELETE FROM t")
        }
        #expect(transport.sent.count == 1)
    }

    /// A write without a key is never retried: its 503 may mean "outcome unknown".
    @Test func aWriteWithoutAKeyIsNotRetried() async throws {
        let transport = ScriptedTransport([Self.busy])
        let middleware = RetryMiddleware(policy: RetryPolicy { _ in })
        let (response, _) = try await middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "server", path: "/update"),
            body: HTTPBody("{}"),
            baseURL: URL(string: "http://server")!,
            operationID: "postUpdate"
        ) { request, body, url in
            try await transport.send(request, body: body, baseURL: url, operationID: "postUpdate")
        }
        #expect(response.status.code == 503)
        #expect(transport.sent.count == 1)
    }

    @Test func anErrorBodyThatIsNotTheContractsStillGivesTheStatus() {
        let error = ErrorBodyMiddleware.error(status: 502, body: Data("<html>bad gateway</html>".utf8))
        #expect(error.status == 502 && error.code == "HTTP_502" && error.message == "<html>bad gateway</html>")
    }

    /// The operations given keys are exactly those the document says need the `write` role.
    /// A generated key is a UUIDv7 (version 7, variant 10) whose first 48 bits are the time in milliseconds, so
    /// keys made later sort after earlier ones, and two made at once differ.
    @Test func generatedKeys_areUUIDv7AndGrowWithTime() throws {
        let start = Date(timeIntervalSince1970: 1_764_201_600)  // 2025-11-27 00:00 UTC
        let keys = (0..<100).map { IdempotencyKeyMiddleware.newKey(at: start.addingTimeInterval(Double($0) / 100)) }
        for key in keys {
            #expect(key.count == 36, "\(key)")
            #expect(key.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12], "\(key)")
            #expect(Array(key)[14] == "7", "\(key)")
            #expect("89ab".contains(Array(key)[19]), "\(key)")
            #expect(key == key.lowercased() && UUID(uuidString: key) != nil, "\(key)")
        }
        #expect(keys == keys.sorted())
        #expect(keys[0].hasPrefix("019ac29c-1400-7"), "\(keys[0])")  // 1,764,201,600,000 ms = 0x019A_C29C_1400
        let sameInstant = IdempotencyKeyMiddleware.newKey(at: start)
        #expect(sameInstant != IdempotencyKeyMiddleware.newKey(at: start))
        #expect(sameInstant.prefix(13) == keys[0].prefix(13))
    }

    @Test func theWritingOperationsAreTheDocumentsWriteRole() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        var writing: Set<String> = []
        for operations in paths.values {
            for operation in operations.values
            where (operation["description"] as? String)?.contains("the `write` role") == true {
                writing.insert(try #require(operation["operationId"] as? String))
            }
        }
        #expect(writing == IdempotencyKeyMiddleware.writingOperations)
    }
}
