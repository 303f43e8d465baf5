import Foundation
import Testing

/// The leader's process killed (SIGKILL) while the followers' write groups are in flight (issue #26): a cluster of
/// its own (``SharedCluster/init()``).
@Suite(.serialized) struct ClusterGroupCommitFailoverTests {
    /// Checks that with 32 writers through the two followers, whose writes go to the leader in groups (the
    /// followers' group series show more requests than groups before the kill), killing the leader answers no
    /// request of a group 2xx unless its row is there afterwards: every acknowledged key is present once on each
    /// node's own copy, no key whose answer said "nothing was changed" is present, and writes resume on the new
    /// leader. Bounded: 60 s for the writes to resume.
    @Test func leaderKilledWithGroupsInFlight_noAcknowledgedWriteIsLost() throws {
        let cluster = try SharedCluster()
        let table = uniqueTableName("gfo")
        try cluster.client(1).ok(
            "/update",
            #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, k TEXT NOT NULL)"}"#
        )
        let leader = try cluster.leaderID()
        let followers = [1, 2, 3].filter { $0 != leader }
        let before = try followers.map { try GroupSeries(cluster.client($0)) }
        let writers = FailoverWriters(
            count: 32,
            baseURLs: followers.map { cluster.nodes[$0 - 1].baseURL },
            table: table,
            round: 1
        )
        try waitFor("writes before the kill", timeoutSeconds: 30) { writers.ledger.acknowledgedCount >= 200 }
        let during = try followers.map { try GroupSeries(cluster.client($0)) }
        let groups = zip(before, during).map { $1.groups - $0.groups }.reduce(0, +)
        let requests = zip(before, during).map { $1.requests - $0.requests }.reduce(0, +)
        #expect(requests > groups, "\(requests) writes in \(groups) groups: no group of more than one")
        let killedAt = Date()
        cluster.kill(leader)
        var resumedAt: Date?
        _ = try? waitFor("a write after the kill", timeoutSeconds: 60) {
            resumedAt = writers.ledger.firstAcknowledgment(ofWriteSentAfter: killedAt)
            return resumedAt != nil
        }
        if resumedAt != nil { usleep(1_000_000) }
        #expect(writers.stop(timeoutSeconds: 40), "the writers did not stop")
        try #require(resumedAt != nil, "no write acknowledged within 60 s of the kill")

        try cluster.restart(leader)
        try cluster.waitUntilReady(leader)
        let report = try FailoverCheck(cluster: cluster, table: table, round: 1, ledger: writers.ledger)
        print(
            "cluster group failover: \(requests) writes in \(groups) groups before the kill; resumed after "
                + String(format: "%.3f s; ", resumedAt.map { $0.timeIntervalSince(killedAt) } ?? 0) + report.summary
        )
        #expect(report.unexpected.isEmpty, "\(report.unexpected.prefix(5))")
        #expect(report.lost.isEmpty, "acknowledged and missing: \(report.lost.prefix(10))")
        #expect(report.duplicated.isEmpty, "present more than once: \(report.duplicated.prefix(10))")
        #expect(report.phantom.isEmpty, "present but never committed: \(report.phantom.prefix(10))")
    }
}
