import DqliteCluster
import Foundation
import HTTPServer
import Logging
import Synchronization

@testable import SQLiteService

/// An in-process service over `member`'s one-node cluster, available, with metrics (the cluster's series too).
func clusterService(_ member: TestMember) -> SQLiteService {
    let node = member.member
    let storage = ClusterStorage(nodeAddress: member.address, members: [member.address], limits: ServiceLimits()) {
        () throws(ClusterError) in try node.clusterInfo()
    }
    var options = ServiceOptions()
    options.metrics = ServiceMetrics(databasePath: member.directory.path + "/unused.sqlite")
    options.metrics?.observeCluster(storage)
    let service = SQLiteService(
        storage: .cluster(storage),
        version: "test",
        logger: Logger(label: "test"),
        options: options
    )
    service.isAvailable = true
    return service
}

/// A JSON `POST` to `path`.
func jsonPost(_ path: String, _ json: String) -> HTTPRequest {
    var headers = HTTPHeaders()
    headers.add(name: "Content-Type", value: "application/json")
    return HTTPRequest(method: "POST", target: path, headers: headers, body: Array(json.utf8))
}

/// The body of a response known up front, as text ("" for a streamed one).
func bodyText(_ response: HTTPResponse) -> String {
    guard case .bytes(let bytes) = response.body else { return "" }
    return String(decoding: bytes, as: UTF8.self)
}

/// The answers given to `handleDeferred`'s `respond`, by the index of their request.
final class DeferredAnswers: Sendable {
    let storage = Mutex<[Int: HTTPResponse]>([:])
    var count: Int { storage.withLock { $0.count } }
    subscript(index: Int) -> HTTPResponse? { storage.withLock { $0[index] } }

    /// Waits until `count` answers are in, or 30 seconds passed.
    func wait(for count: Int) {
        let deadline = ContinuousClock.now + .seconds(30)
        while self.count < count && ContinuousClock.now < deadline { usleep(2000) }
    }
}

/// The value of the sample `series` (its name with labels, as printed) in the service's `GET /metrics`, or nil.
func metricSample(_ series: String, of service: SQLiteService) -> Double? {
    let text = bodyText(service.handle(HTTPRequest(method: "GET", target: "/metrics")))
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
