import Dispatch
import Foundation
import Synchronization
import Testing

/// Reads through both followers while the leader's process is killed (SIGKILL): a cluster of its own
/// (``SharedCluster/init(networkLatencyMilliseconds:)``). Reads go to the leader in batches (issue #26), and a batch
/// cut by the leader's death is retried whole on the new one.
@Suite(.serialized) struct ClusterReadFailoverTests {
    /// What the readers saw, and whether the leader was killed yet.
    private final class Tally: Sendable {
        struct Counts {
            var right = 0
            var rightAfterKill: [Int: Int] = [:]
            var unavailable = 0
            var wrong: [String] = []
        }
        let counts = Mutex(Counts())
        let killed = Atomic<Bool>(false)
    }

    /// 16 readers on the two survivors read known rows, point reads and `*` reads, before, during and after the
    /// leader is killed: every answer is the right row or a 503 that says to retry (`Retry-After`), never another
    /// status, a wrong or missing row, or a dropped connection; every reader reads rightly again on the new leader.
    @Test func leaderKilledUnderReads_everyAnswerRightOr503_andReadsResume() throws {
        let cluster = try SharedCluster()
        let leader = try cluster.leaderID()
        let survivors = try cluster.followerIDs()
        try cluster.client(survivors[0]).ok(
            "/update",
            #"{"sql": "CREATE TABLE r(id INTEGER PRIMARY KEY, v TEXT NOT NULL)"}"#
        )
        try cluster.client(survivors[1]).ok(
            "/update",
            #"{"sql": "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 200) INSERT INTO r SELECT i, 'v' || i FROM s"}"#
        )
        let tally = Tally()
        let group = DispatchGroup()
        let readers = 16
        let deadline = Date().addingTimeInterval(90)
        for reader in 0..<readers {
            let baseURL = cluster.nodes[survivors[reader % 2] - 1].baseURL
            onNewThread(group: group) {
                Self.read(reader: reader, baseURL: baseURL, until: deadline, tally: tally)
            }
        }
        try waitFor("400 right reads before the kill", timeoutSeconds: 60) { tally.counts.withLock { $0.right } >= 400 }
        cluster.kill(leader)
        tally.killed.store(true, ordering: .sequentiallyConsistent)
        #expect(group.wait(timeout: .now() + 120) == .success, "the readers did not finish")

        let seen = tally.counts.withLock { $0 }
        let afterKill = seen.rightAfterKill.values.reduce(0, +)
        print(
            "cluster read failover: \(seen.right) right reads (\(afterKill) after the kill), \(seen.unavailable) 503, "
                + "\(seen.wrong.count) wrong"
        )
        #expect(seen.wrong.isEmpty, "\(seen.wrong.prefix(5))")
        for reader in 0..<readers {
            #expect(seen.rightAfterKill[reader, default: 0] >= 20, "reader \(reader) did not read again after the kill")
        }
        #expect(try cluster.leaderID(asSeenBy: survivors[0]) != leader)
    }

    /// One reader: until it has read 20 rows rightly after the kill (or the deadline), alternately a point read and
    /// a `*` read of a random row through `baseURL`, each answer checked and counted.
    private static func read(
        reader: Int,
        baseURL: String,
        until deadline: Date,
        tally: Tally
    ) {
        // Longer than the node's own 10 s for finding a leader, so a read waiting for an election is answered.
        guard let client = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30) else {
            tally.counts.withLock { $0.wrong.append("reader \(reader): no connection") }
            return
        }
        var sequence = 0
        while Date() < deadline {
            let afterKill = tally.killed.load(ordering: .sequentiallyConsistent)
            if afterKill && tally.counts.withLock({ $0.rightAfterKill[reader, default: 0] }) >= 20 { return }
            let id = Int.random(in: 1...200)
            let sql = sequence % 2 == 0 ? "SELECT v FROM r WHERE id = ?" : "SELECT * FROM r WHERE id = ?"
            sequence += 1
            guard
                let response = try? client.post("/query", #"{"sql": "\#(sql)", "params": [\#(id)], "shape": "arrays"}"#)
            else {
                tally.counts.withLock { $0.wrong.append("reader \(reader): no answer to \(sql) (\(id))") }
                return
            }
            let body = response.bodyText
            switch response.status {
            case 200 where body.contains(#""v\#(id)"]]"#):
                tally.counts.withLock {
                    $0.right += 1
                    if afterKill { $0.rightAfterKill[reader, default: 0] += 1 }
                }
            case 503 where response.header("Retry-After") != nil:
                tally.counts.withLock { $0.unavailable += 1 }
                usleep(20_000)
            default:
                tally.counts.withLock {
                    $0.wrong.append("reader \(reader): \(response.status) \(body) for \(sql) (\(id))")
                }
            }
        }
    }
}
