import Foundation
import Testing

/// Planned leadership moves under write load (issue #23), on a cluster of the test's own (``SharedCluster/init()``):
/// `sqlited cluster transfer` around the three nodes, then the leader stopped with SIGTERM, each with 32 writers.
/// Every write is answered 200, or 503 `UNAVAILABLE` with `Retry-After` — never a 500 such as the
/// `SQLITE_NOMEM "no more rows available"` dqlite's refusal used to become — and every acknowledged write is on
/// every node once.
@Suite(.serialized) struct ClusterLeadershipMoveTests {
    static let writers = 32

    @Test func transfersAndLeaderSIGTERM_under32Writers_answer200Or503AndLoseNothing() throws {
        let cluster = try SharedCluster()
        let table = uniqueTableName("lm")
        try cluster.client(1).ok(
            "/update",
            #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, k TEXT NOT NULL)"}"#
        )

        // Round 1: writers on all three nodes while the leadership moves 1 → 2 → 3 → 1 → 2 → 3 with the command.
        try cluster.transferLeadership(to: 1)
        let moving = FailoverWriters(
            count: Self.writers,
            baseURLs: cluster.nodes.map(\.baseURL),
            table: table,
            round: 1
        )
        try waitFor("writes before the first transfer", timeoutSeconds: 30) { moving.ledger.acknowledgedCount >= 64 }
        for target in [2, 3, 1, 2, 3] {
            let before = moving.ledger.acknowledgedCount
            let transferred = try ClusterCommandTests.run(
                ["transfer", "--id", "\(target)", "--member", cluster.nodes[target - 1].raftAddress]
            )
            #expect(transferred.status == 0, "transfer to \(target): \(transferred.stderr)")
            try waitFor("writes after the transfer to \(target)", timeoutSeconds: 30) {
                moving.ledger.acknowledgedCount >= before + 32
            }
        }
        #expect(moving.stop(timeoutSeconds: 40), "the writers did not stop")
        let moved = try FailoverCheck(cluster: cluster, table: table, round: 1, ledger: moving.ledger)
        print("cluster leadership transfers under \(Self.writers) writers: " + moved.summary)
        expectNothingLost(moved, "transfers")

        // Round 2: writers through the followers while the leader stops on SIGTERM, then starts again.
        let leader = try cluster.leaderID()
        let followers = [1, 2, 3].filter { $0 != leader }
        let stopping = FailoverWriters(
            count: Self.writers,
            baseURLs: followers.map { cluster.nodes[$0 - 1].baseURL },
            table: table,
            round: 2
        )
        try waitFor("writes before SIGTERM", timeoutSeconds: 30) { stopping.ledger.acknowledgedCount >= 64 }
        let stoppedAt = Date()
        try cluster.terminate(leader)
        try waitFor("a write after SIGTERM", timeoutSeconds: 60) {
            stopping.ledger.firstAcknowledgment(ofWriteSentAfter: stoppedAt) != nil
        }
        usleep(500_000)
        #expect(stopping.stop(timeoutSeconds: 40), "the writers did not stop")
        try cluster.restart(leader)
        // At once: the restarted node has not caught up yet, and the leader refuses to hand over until it has;
        // the command asks again within its --timeout-ms (10 s).
        let back = try ClusterCommandTests.run(
            ["transfer", "--id", "\(leader)", "--member", cluster.nodes[followers[0] - 1].raftAddress]
        )
        #expect(back.status == 0, "transfer to the restarted node \(leader): \(back.stderr)")
        try cluster.waitUntilReady(leader)
        let stopped = try FailoverCheck(cluster: cluster, table: table, round: 2, ledger: stopping.ledger)
        print("cluster leader SIGTERM under \(Self.writers) writers: " + stopped.summary)
        expectNothingLost(stopped, "SIGTERM")
    }

    private func expectNothingLost(
        _ report: FailoverCheck,
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(report.unexpected.isEmpty, "\(what): \(report.unexpected.prefix(5))", sourceLocation: sourceLocation)
        #expect(report.lost.isEmpty, "\(what): acknowledged and missing: \(report.lost.prefix(10))")
        #expect(report.duplicated.isEmpty, "\(what): present more than once: \(report.duplicated.prefix(10))")
        #expect(report.phantom.isEmpty, "\(what): present but never committed: \(report.phantom.prefix(10))")
        #expect(report.acknowledged > 0, sourceLocation: sourceLocation)
    }
}
