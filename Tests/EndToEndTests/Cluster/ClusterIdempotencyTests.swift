import Dispatch
import Foundation
import Synchronization
import Testing

/// `Idempotency-Key` on the cluster storage (API.md, "Safe retries"): the keys are replicated with the writes, so a
/// retry through another node is answered as stored, and one key sent through several nodes at once runs once.
@Suite struct ClusterIdempotencyTests {
    /// Checks that a write keyed through a follower is replayed byte for byte through the leader and the other
    /// follower, that another body under the key is 422 there, and that it ran once.
    @Test func retryThroughAnotherNode_isReplayed() throws {
        let cluster = try SharedCluster.get()
        let table = uniqueTableName("cidem")
        let followers = try cluster.followerIDs()
        let leader = try cluster.leaderID()
        try cluster.client(leader).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, x)")
        let key = "ck-" + UUID().uuidString
        let body = #"{"sql": "INSERT INTO \#(table)(x) VALUES (randomblob(4)) RETURNING id, x"}"#
        let first = try cluster.client(followers[0]).postJSON(
            "/update",
            text: body,
            headers: [("Idempotency-Key", key)]
        )
        #expect(first.status == 200)
        #expect(first.header("Idempotent-Replayed") == nil)
        for id in [leader, followers[1]] {
            let again = try cluster.client(id).postJSON("/update", text: body, headers: [("Idempotency-Key", key)])
            #expect(again.status == 200, "node \(id)")
            #expect(again.header("Idempotent-Replayed") == "true", "node \(id)")
            #expect(again.body == first.body, "node \(id)")
            let reused = try cluster.client(id).postJSON(
                "/update",
                text: #"{"sql": "DELETE FROM \#(table)"}"#,
                headers: [("Idempotency-Key", key)]
            )
            #expect(reused.status == 422, "node \(id)")
        }
        #expect(try cluster.client(leader).scalarInt("SELECT count(*) FROM \(table)") == 1)
        // Hidden from clients on the cluster too.
        #expect(!(try cluster.client(followers[0]).get("/tables").bodyText.contains("_sqlited_")))
        let read = try cluster.client(followers[0]).post("/query", #"{"sql": "SELECT * FROM _sqlited_idempotency"}"#)
        #expect(read.status == 403)
    }

    /// Checks that one keyed write sent through every node at once (two clients each) runs once: every answer is
    /// the first one (or its replay, or 409 on the node where it was running), and the row exists once.
    @Test func sameKeyThroughEveryNodeAtOnce_runsOnce() throws {
        let cluster = try SharedCluster.get()
        let table = uniqueTableName("cidem")
        try cluster.client(try cluster.leaderID()).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, x)")
        for round in 0..<3 {
            let key = "ck-" + UUID().uuidString
            let body = #"{"sql": "INSERT INTO \#(table)(x) VALUES (\#(round)) RETURNING id"}"#
            let answers = Mutex<[(status: Int, body: [UInt8])]>([])
            let group = DispatchGroup()
            for id in [1, 2, 3, 1, 2, 3] {
                group.enter()
                Thread {
                    defer { group.leave() }
                    guard let client = try? cluster.client(id),
                        let response = try? client.postJSON("/update", text: body, headers: [("Idempotency-Key", key)])
                    else { return }
                    answers.withLock { $0.append((response.status, response.body)) }
                }.start()
            }
            group.wait()
            let all = answers.withLock { $0 }
            #expect(all.count == 6)
            let successes = Set(all.filter { $0.status == 200 }.map(\.body))
            #expect(successes.count == 1, "\(all.map { String(decoding: $0.body, as: UTF8.self) })")
            #expect(all.allSatisfy { $0.status == 200 || $0.status == 409 })
            let count = try cluster.client(1).scalarInt("SELECT count(*) FROM \(table) WHERE x = \(round)")
            #expect(count == 1)
        }
    }
}
