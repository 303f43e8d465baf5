import Dispatch
import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// A service with a table `c(id INTEGER PRIMARY KEY, n INTEGER)` holding row 1 with `n = 0`, and helpers for
/// `/transactions`.
struct TransactionFixture {
    let base: ServiceFixture

    init(readers: Int = 2, limits: (inout ServiceLimits) -> Void = { _ in }) throws {
        base = try ServiceFixture(readers: readers)
        var serviceLimits = ServiceLimits()
        limits(&serviceLimits)
        base.service.setLimits(serviceLimits)
        base.send("POST", "/update", json: #"{"sql": "CREATE TABLE c(id INTEGER PRIMARY KEY, n INTEGER)"}"#)
        base.send("POST", "/update", json: #"{"sql": "INSERT INTO c VALUES (1, 0)"}"#)
    }

    var service: SQLiteService { base.service }

    @discardableResult
    func send(
        _ method: String,
        _ target: String,
        json: String? = nil,
        key: String? = nil,
        token: String? = nil
    ) -> HTTPResponse {
        base.send(method, target, json: json, key: key, token: token)
    }

    /// Sends a request from another thread; its response comes later.
    func sendLater(_ method: String, _ target: String, json: String? = nil, token: String? = nil) -> PendingResponse {
        let request = ServiceFixture.request(method, target, json: json, key: nil, token: token)
        let service = self.service
        return PendingResponse { service.handle(request) }
    }

    /// Opens a transaction; its ID.
    func open(_ json: String? = nil, token: String? = nil) throws -> String {
        let response = send("POST", "/transactions", json: json, token: token)
        try #require(response.status.code == 201, "\(text(response))")
        guard case .string(let id)? = try bodyObject(response)["id"] else { throw FixtureError("no id") }
        return id
    }

    /// The counter's value, read through `/query`.
    func counter() throws -> Int64 {
        let response = send("POST", "/query", json: #"{"sql": "SELECT n FROM c WHERE id = 1", "shape": "arrays"}"#)
        guard case .array(let rows)? = try bodyObject(response)["rows"], case .array(let row)? = rows.first,
            case .integer(let n)? = row.first
        else { throw FixtureError("no counter in \(text(response))") }
        return n
    }

    /// The `code` of an error answer.
    func code(_ response: HTTPResponse) -> String? {
        guard case .string(let code)? = (try? errorObject(response))??["code"] else { return nil }
        return code
    }
}

/// The body of a response as text.
func text(_ response: HTTPResponse) -> String {
    guard case .bytes(let bytes) = response.body else { return "<stream>" }
    return String(decoding: bytes, as: UTF8.self)
}

/// A response produced on another thread, waited for.
final class PendingResponse: Sendable {
    private let response = Mutex<HTTPResponse?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ produce: @escaping @Sendable () -> HTTPResponse) {
        DispatchQueue.global().async { [self] in
            let value = produce()
            response.withLock { $0 = value }
            done.signal()
        }
    }

    /// The response, once produced (nil when not within `timeout`).
    func wait(timeout: Duration = .seconds(10)) -> HTTPResponse? {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
        return response.withLock { $0 }
    }
}
