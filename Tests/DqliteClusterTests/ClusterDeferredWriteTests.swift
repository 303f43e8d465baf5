import DqliteClient
import DqliteCluster
import Foundation
import HTTPServer
import Logging
import Synchronization
import Testing

@testable import SQLiteService

/// Cluster writes taken on the event loop (``SQLiteService/handleDeferred(_:respond:)``): queued for the node's next
/// group with no thread waiting, answered by the group's leader (the committer's queue) only after the group's
/// `COMMIT` on the leader — on an in-process service over a real one-node cluster.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClusterDeferredWriteTests {
    private static func post(_ path: String, _ json: String) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPRequest(method: "POST", target: path, headers: headers, body: Array(json.utf8))
    }

    /// The answers given to `respond`, by index.
    private final class Answers: Sendable {
        let storage = Mutex<[Int: HTTPResponse]>([:])
        var count: Int { storage.withLock { $0.count } }
        subscript(index: Int) -> HTTPResponse? { storage.withLock { $0[index] } }
    }

    private static func service(_ member: TestMember) -> SQLiteService {
        let node = member.member
        let storage = ClusterStorage(nodeAddress: member.address, members: [member.address], limits: ServiceLimits()) {
            () throws(ClusterError) in try node.clusterInfo()
        }
        var options = ServiceOptions()
        options.metrics = ServiceMetrics(databasePath: member.directory.path + "/unused.sqlite")
        let service = SQLiteService(
            storage: .cluster(storage),
            version: "test",
            logger: Logger(label: "test"),
            options: options
        )
        service.isAvailable = true
        return service
    }

    /// Checks that writes taken while the leader's write lock is held elsewhere are queued, not answered; once the
    /// lock is released they are answered — the failing one with its error, the others 200 — and their rows are
    /// there, committed in one group.
    @Test func deferredWrites_areAnsweredAfterTheirGroupCommits() throws {
        let member = try TestMember(id: 1)
        let service = Self.service(member)
        #expect(service.handle(Self.post("/update", #"{"sql": "CREATE TABLE t(k TEXT)"}"#)).status.code == 200)
        let (groupsBefore, _) = try Self.groupCommitCounts(service)

        // A raw wire client holds the leader's write lock: the group's BEGIN IMMEDIATE waits for it.
        let holder = try DqliteConnection(address: member.address, options: testConnectionOptions)
        defer { holder.close() }
        let database = try holder.open(ClusterStorage.defaultDatabaseName)
        _ = try holder.exec(sql: "BEGIN IMMEDIATE", database: database)

        let answers = Answers()
        let requests = [
            Self.post("/update", #"{"sql": "INSERT INTO t VALUES ('a')"}"#),
            Self.post("/batch", #"{"statements": [{"sql": "INSERT INTO t VALUES ('b')"}]}"#),
            Self.post("/transaction", #"{"statements": [{"sql": "INSERT INTO t VALUES ('c')"}]}"#),
            Self.post("/tables/t/rows", #"{"rows": [{"k": "d"}]}"#),
            Self.post("/update", #"{"sql": "INSERT INTO nowhere VALUES (1)"}"#),
        ]
        for (index, request) in requests.enumerated() {
            let taken = service.handleDeferred(request) { response in
                answers.storage.withLock { $0[index] = response }
            }
            #expect(taken)
        }
        // The failing write is refused by this node's copy of the schema when its turn comes, in the group.
        usleep(300_000)
        #expect(answers.count == 0, "answered while the leader's lock was held elsewhere")

        _ = try holder.exec(sql: "COMMIT", database: database)
        let deadline = ContinuousClock.now + .seconds(30)
        while answers.count < requests.count && ContinuousClock.now < deadline { usleep(2000) }
        for index in 0..<4 { #expect(answers[index]?.status.code == 200, "\(index)") }
        #expect(answers[4]?.status.code == 400)
        let stored = service.handle(
            Self.post(
                "/query",
                #"{"sql": "SELECT group_concat(k, '') FROM (SELECT k FROM t ORDER BY k)", "shape": "arrays"}"#
            )
        )
        #expect(Self.text(stored).contains(#"[["abcd"]]"#), "\(Self.text(stored))")
        let (groups, grouped) = try Self.groupCommitCounts(service)
        // The first write waits at the held lock alone; the four after it form one group behind it, at most.
        #expect(groups - groupsBefore <= 2)
        #expect(grouped >= 4)
    }

    /// The body of a response known up front, as text ("" for a streamed one).
    private static func text(_ response: HTTPResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The group commit series of the service's metrics: groups so far, and requests in them.
    private static func groupCommitCounts(_ service: SQLiteService) throws -> (Double, Double) {
        let text = Self.text(service.handle(HTTPRequest(method: "GET", target: "/metrics")))
        func sample(_ name: String) -> Double {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                Double($0.split(separator: " ")[1])
            }
                ?? 0
        }
        return (sample("sqlited_group_commits_total"), sample("sqlited_group_commit_requests_sum"))
    }
}
