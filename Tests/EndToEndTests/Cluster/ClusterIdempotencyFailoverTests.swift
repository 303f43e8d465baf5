import Dispatch
import Foundation
import Synchronization
import Testing

/// Safe retries through a failover: the leader's process killed (SIGKILL) under keyed writes, on a cluster of its
/// own (``SharedCluster/init()``).
@Suite(.serialized) struct ClusterIdempotencyFailoverTests {
    /// Writers each send `INSERT`s under a unique `Idempotency-Key`, and retry every one with the same key through
    /// the next node after a 503 (outcome unknown or not), a 409 or a broken connection, until it is answered 200;
    /// the leader is killed meanwhile. Afterwards every key's row is present exactly once (the table has no unique
    /// constraint: a write run twice would show): 0 lost, 0 duplicated. Bounded: 60 s of retries per write.
    @Test func leaderKilled_keyedRetriesThroughAnotherNode_neitherLoseNorDuplicate() throws {
        let cluster = try SharedCluster()
        let leader = try cluster.leaderID()
        try cluster.client(leader).update("CREATE TABLE fk(id INTEGER PRIMARY KEY, k TEXT NOT NULL)")
        let urls = cluster.nodes.map(\.baseURL)
        let stopping = Atomic<Bool>(false)
        let keys = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let retries = Atomic<Int>(0)
        let replays = Atomic<Int>(0)
        let group = DispatchGroup()
        for writer in 0..<12 {
            group.enter()
            Thread {
                defer { group.leave() }
                var node = writer % urls.count
                var sequence = 0
                while !stopping.load(ordering: .relaxed) {
                    let key = "fw\(writer)-\(sequence)"
                    sequence += 1
                    keys.withLock { $0.append(key) }
                    let body = #"{"sql": "INSERT INTO fk(k) VALUES (?)", "params": ["\#(key)"]}"#
                    let deadline = Date().addingTimeInterval(60)
                    while true {
                        if Date() > deadline {
                            failures.withLock { $0.append("\(key): not answered within 60 s") }
                            return
                        }
                        if let client = try? HTTPTestClient(baseURL: urls[node], timeoutSeconds: 15),
                            let response = try? client.postJSON(
                                "/update",
                                text: body,
                                headers: [("Idempotency-Key", key)]
                            )
                        {
                            if response.status == 200 {
                                if response.header("Idempotent-Replayed") == "true" {
                                    replays.add(1, ordering: .relaxed)
                                }
                                break
                            }
                            if response.status != 503 && response.status != 409 {
                                failures.withLock { $0.append("\(key): \(response.status) \(response.bodyText)") }
                                return
                            }
                        }
                        retries.add(1, ordering: .relaxed)
                        node = (node + 1) % urls.count
                        usleep(50_000)
                    }
                }
            }.start()
        }
        usleep(700_000)
        cluster.kill(leader)
        let survivors = [1, 2, 3].filter { $0 != leader }
        // Writes go on until the survivors have a new leader and have acknowledged more writes through it.
        try waitFor("new leader", timeoutSeconds: 60) {
            ((try? cluster.leaderID(asSeenBy: survivors[0])) ?? leader) != leader
        }
        let before = keys.withLock { $0.count }
        try waitFor("writes after the failover", timeoutSeconds: 60) { keys.withLock { $0.count } > before + 50 }
        stopping.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 90) == .success)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")

        let rows = try cluster.client(survivors[0]).ok(
            "/query",
            #"{"sql": "SELECT k, count(*) FROM fk GROUP BY k", "shape": "arrays", "max_rows": 100000}"#
        )
        var counts: [String: Int64] = [:]
        for row in rows["rows"]?.arrayValue ?? [] {
            if let key = row[0]?.stringValue, let count = row[1]?.int64Value { counts[key] = count }
        }
        let attempted = keys.withLock { $0 }
        let lost = attempted.filter { counts[$0] == nil }
        let duplicated = counts.filter { $0.value != 1 }
        #expect(lost.isEmpty, "lost: \(lost.prefix(5))")
        #expect(duplicated.isEmpty, "duplicated: \(duplicated.prefix(5))")
        #expect(retries.load(ordering: .relaxed) > 0)
        print(
            "failover: \(attempted.count) keyed writes, \(retries.load(ordering: .relaxed)) retries, "
                + "\(replays.load(ordering: .relaxed)) replays, \(lost.count) lost, \(duplicated.count) duplicated"
        )
    }
}
