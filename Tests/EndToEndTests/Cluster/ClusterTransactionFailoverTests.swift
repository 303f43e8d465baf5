import Foundation
import Testing

/// An interactive transaction whose leader is killed (SIGKILL) under it: a cluster of its own
/// (``SharedCluster/init(networkLatencyMilliseconds:)``).
@Suite(.serialized) struct ClusterTransactionFailoverTests {
    /// Checks the contract's answer when the leader is lost mid-transaction: the next request on the transaction is
    /// 503 `UNAVAILABLE` with `"transaction_open": false` and `Retry-After`, the ID is unknown afterwards (404
    /// `NO_SUCH_TRANSACTION`, to a statement and to a commit), nothing of the transaction is in the database once a
    /// new leader is elected, and a new transaction through the same node commits. Bounded: 60 s for the election.
    @Test func leaderKilledMidTransaction_isUnavailableThenUnknownAndLeavesNothing() throws {
        let cluster = try SharedCluster()
        let leader = try cluster.leaderID()
        let node = [1, 2, 3].first { $0 != leader }!
        let client = try cluster.client(node)
        try client.ok("/update", #"{"sql": "CREATE TABLE lost(id INTEGER PRIMARY KEY, v TEXT)"}"#)
        let id = try client.openTransactionID()
        #expect(try client.step(id, #"{"sql": "INSERT INTO lost(v) VALUES ('in the transaction')"}"#).status == 200)

        cluster.kill(leader)
        let lost = try client.step(id, #"{"sql": "INSERT INTO lost(v) VALUES ('after the kill')"}"#)
        #expect(lost.status == 503, "\(lost.bodyText)")
        let error = try lost.json()["error"]
        #expect(error?["code"]?.stringValue == "UNAVAILABLE", "\(lost.bodyText)")
        #expect(error?["transaction_open"] == .bool(false), "\(lost.bodyText)")
        #expect(lost.header("Retry-After") != nil)
        let statement = try client.step(id, #"{"sql": "SELECT 1"}"#)
        #expect(statement.status == 404, "\(statement.bodyText)")
        #expect(try statement.json()["error"]?["code"]?.stringValue == "NO_SUCH_TRANSACTION")
        #expect(try client.end(id).status == 404)

        // Once the survivors elect a leader: nothing of the transaction, and a new one commits.
        let deadline = Date().addingTimeInterval(60)
        var committed = false
        while !committed, Date() < deadline {
            let opened = try client.openTransaction()
            guard opened.status == 201, let next = try opened.json()["id"]?.stringValue else {
                #expect(opened.status == 503, "\(opened.bodyText)")
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            let count = try client.step(next, #"{"sql": "SELECT count(*) FROM lost", "shape": "arrays"}"#)
            #expect(count.status == 200, "\(count.bodyText)")
            #expect(try count.json()["rows"]?[0]?[0]?.int64Value == 0, "\(count.bodyText)")
            #expect(try client.step(next, #"{"sql": "INSERT INTO lost(v) VALUES ('new leader')"}"#).status == 200)
            let commit = try client.end(next)
            #expect(commit.status == 200, "\(commit.bodyText)")
            committed = commit.status == 200
        }
        #expect(committed, "no transaction committed within 60 s of the leader's loss")
        let rows = try client.ok("/query", #"{"sql": "SELECT v FROM lost", "shape": "arrays"}"#)
        #expect(rows["rows"] == .array([.array([.string("new leader")])]))
    }
}
