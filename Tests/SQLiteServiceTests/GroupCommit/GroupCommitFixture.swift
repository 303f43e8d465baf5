import Dispatch
import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

extension ServiceFixture {
    /// Sends `requests` (path, JSON body) concurrently while the writer is held, waits until all of them are queued,
    /// then frees the writer: they all run in the same group. Returns the responses in the order of `requests`.
    func sendInOneGroup(
        _ requests: [(path: String, json: String)],
        pauseBeforeRelease: Duration = .zero
    ) throws -> [HTTPResponse] {
        let release = holdWriter()
        let service = self.service
        let responses = ResponseBox()
        for (index, request) in requests.enumerated() {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            let httpRequest = HTTPRequest(
                method: "POST",
                target: request.path,
                headers: headers,
                body: Array(request.json.utf8)
            )
            Thread {
                let response = service.handle(httpRequest)
                responses.storage.withLock { $0[index] = response }
            }.start()
        }
        while service.groupCommitter.queuedCount < requests.count {
            usleep(1000)
        }
        Thread.sleep(forTimeInterval: Double(pauseBeforeRelease.components.attoseconds) / 1e18)
        release()
        while responses.storage.withLock({ $0.count }) < requests.count {
            usleep(1000)
        }
        return try (0..<requests.count).map { index in
            try #require(responses.storage.withLock { $0[index] })
        }
    }

    /// Takes the writer on a thread of its own and keeps it until the returned closure is called: writes queue
    /// meanwhile, and form one group once it is freed.
    func holdWriter() -> @Sendable () -> Void {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let pool = self.pool
        Thread {
            try? pool.write { _ in
                held.signal()
                release.wait()
            }
        }.start()
        held.wait()
        return { release.signal() }
    }

    /// The value of `sql`'s single column in its first row, through `/query`.
    func scalar(_ sql: String) throws -> JSONValue? {
        let response = send("POST", "/query", json: "{\"sql\": \"\(sql)\", \"shape\": \"arrays\"}")
        try #require(response.status.code == 200)
        guard case .array(let rows)? = try bodyObject(response)["rows"], case .array(let row)? = rows.first else {
            return nil
        }
        return row.first
    }

    /// The committed groups and the requests they held, from `/metrics`.
    func groupCommitCounts() throws -> (groups: Double, requests: Double) {
        let text = try metricsText()
        return (
            sample("sqlited_group_commits_total", in: text) ?? 0,
            sample("sqlited_group_commit_requests_sum", in: text) ?? 0
        )
    }
}

/// The `error` object of a response body, or nil.
func errorObject(_ response: HTTPResponse) throws -> JSONObject? {
    guard case .object(let error)? = try bodyObject(response)["error"] else { return nil }
    return error
}

/// Responses collected from several threads.
private final class ResponseBox: Sendable {
    let storage = Mutex<[Int: HTTPResponse]>([:])
}
