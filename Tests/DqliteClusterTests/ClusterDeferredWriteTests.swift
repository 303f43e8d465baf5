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

    /// Checks that a group's copy of the schema is checked once the group holds the leader's write lock, not
    /// before: a write (a `/batch`) naming a table that another client creates while the group waits at its
    /// `BEGIN IMMEDIATE` succeeds. (Checked before, when the group began, the copy lacked the table and the write failed with 400 "no
    /// such table" — a write sent through one node just after a table was created through another could meet it.)
    @Test func aGroupChecksItsSchemaCopy_onceItHoldsTheWriteLock() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        #expect(service.handle(jsonPost("/update", #"{"sql": "CREATE TABLE t(k TEXT)"}"#)).status.code == 200)

        let holder = try DqliteConnection(address: member.address, options: testConnectionOptions)
        defer { holder.close() }
        let database = try holder.open(ClusterStorage.defaultDatabaseName)
        _ = try holder.exec(sql: "BEGIN IMMEDIATE", database: database)

        let answers = DeferredAnswers()
        // A `/batch` is not one transaction alone, so even a group of it alone takes the group's BEGIN IMMEDIATE.
        let request = jsonPost("/batch", #"{"statements": [{"sql": "INSERT INTO u(v) VALUES ('late')"}]}"#)
        #expect(service.handleDeferred(request) { response in answers.storage.withLock { $0[0] = response } })
        // The group waits at its BEGIN IMMEDIATE while the table is created and committed elsewhere.
        usleep(300_000)
        #expect(answers.count == 0)
        _ = try holder.exec(sql: "CREATE TABLE u(v TEXT)", database: database)
        _ = try holder.exec(sql: "COMMIT", database: database)

        answers.wait(for: 1)
        #expect(answers[0]?.status.code == 200, "\(answers[0].map(bodyText) ?? "no answer")")
        let stored = service.handle(jsonPost("/query", #"{"sql": "SELECT v FROM u", "shape": "arrays"}"#))
        #expect(bodyText(stored).contains(#"[["late"]]"#), "\(bodyText(stored))")
    }

    /// The group commit series of the service's metrics: groups so far, and requests in them.
    private static func groupCommitCounts(_ service: SQLiteService) -> (Double, Double) {
        (
            metricSample("sqlited_group_commits_total", of: service) ?? 0,
            metricSample("sqlited_group_commit_requests_sum", of: service) ?? 0
        )
    }
}
