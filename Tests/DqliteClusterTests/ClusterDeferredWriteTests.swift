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
    /// Checks that writes taken while the leader's write lock is held elsewhere are queued, not answered; once the
    /// lock is released they are answered — the failing one with its error, the others 200 — and their rows are
    /// there, committed in one group.
    @Test func deferredWrites_areAnsweredAfterTheirGroupCommits() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        #expect(service.handle(jsonPost("/update", #"{"sql": "CREATE TABLE t(k TEXT)"}"#)).status.code == 200)
        let (groupsBefore, _) = Self.groupCommitCounts(service)

        // A raw wire client holds the leader's write lock: the group's BEGIN IMMEDIATE waits for it.
        let holder = try DqliteConnection(address: member.address, options: testConnectionOptions)
        defer { holder.close() }
        let database = try holder.open(ClusterStorage.defaultDatabaseName)
        _ = try holder.exec(sql: "BEGIN IMMEDIATE", database: database)

        let answers = DeferredAnswers()
        let requests = [
            jsonPost("/update", #"{"sql": "INSERT INTO t VALUES ('a')"}"#),
            jsonPost("/batch", #"{"statements": [{"sql": "INSERT INTO t VALUES ('b')"}]}"#),
            jsonPost("/transaction", #"{"statements": [{"sql": "INSERT INTO t VALUES ('c')"}]}"#),
            jsonPost("/tables/t/rows", #"{"rows": [{"k": "d"}]}"#),
            jsonPost("/update", #"{"sql": "INSERT INTO nowhere VALUES (1)"}"#),
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
        answers.wait(for: requests.count)
        for index in 0..<4 { #expect(answers[index]?.status.code == 200, "\(index)") }
        #expect(answers[4]?.status.code == 400)
        let stored = service.handle(
            jsonPost(
                "/query",
                #"{"sql": "SELECT group_concat(k, '') FROM (SELECT k FROM t ORDER BY k)", "shape": "arrays"}"#
            )
        )
        #expect(bodyText(stored).contains(#"[["abcd"]]"#), "\(bodyText(stored))")
        let (groups, grouped) = Self.groupCommitCounts(service)
        // The first write waits at the held lock alone; the four after it form one group behind it, at most.
        #expect(groups - groupsBefore <= 2)
        #expect(grouped >= 4)
    }

    /// The group commit series of the service's metrics: groups so far, and requests in them.
    private static func groupCommitCounts(_ service: SQLiteService) -> (Double, Double) {
        (
            metricSample("sqlited_group_commits_total", of: service) ?? 0,
            metricSample("sqlited_group_commit_requests_sum", of: service) ?? 0
        )
    }
}
