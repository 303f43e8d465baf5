import Foundation
import Testing

/// The leader's process killed (SIGKILL) under writes: a cluster of its own (``SharedCluster/init()``).
@Suite(.serialized) struct ClusterFailoverTests {
    /// Writes through a surviving node go on once the others elect a new leader; every acknowledged write is
    /// present exactly once afterwards, read through both survivors' HTTP endpoints (both read the new leader's
    /// copy: cluster reads go to the leader; each node's own copy is checked by ClusterFailoverRoundsTests, which
    /// hands leadership to every node in turn); a write answered 503 carries `Retry-After`. Bounded: at most 60 s
    /// of retries after the kill.
    @Test func leaderKilled_writesResumeOnNewLeaderAndNothingAcknowledgedIsLost() throws {
        let cluster = try SharedCluster()
        let leader = try cluster.leaderID()
        let survivors = [1, 2, 3].filter { $0 != leader }
        let writer = try cluster.client(survivors[0])
        try writer.ok("/update", #"{"sql": "CREATE TABLE f(id INTEGER PRIMARY KEY, v INTEGER NOT NULL)"}"#)
        var acknowledged: [Int] = []
        for value in 1...5 {
            try writer.ok("/update", #"{"sql": "INSERT INTO f(v) VALUES (?)", "params": [\#(value)]}"#)
            acknowledged.append(value)
        }

        cluster.kill(leader)
        let deadline = Date().addingTimeInterval(60)
        var value = 6
        while acknowledged.count < 10, Date() < deadline {
            let response = try writer.post("/update", #"{"sql": "INSERT INTO f(v) VALUES (?)", "params": [\#(value)]}"#)
            if response.status == 200 {
                acknowledged.append(value)
            } else {
                #expect(response.status == 503, "\(response.bodyText)")
                #expect(response.header("Retry-After") == "1")
            }
            value += 1
        }
        #expect(acknowledged.count == 10)

        let newLeader = try cluster.leaderID(asSeenBy: survivors[1])
        #expect(newLeader != leader)
        #expect(try cluster.leaderID(asSeenBy: survivors[0]) == newLeader)
        for id in survivors {
            let rows = try cluster.client(id).ok("/query", #"{"sql": "SELECT v FROM f ORDER BY v", "shape": "arrays"}"#)
            let values = (rows["rows"]?.arrayValue ?? []).compactMap { $0[0]?.int64Value }.map(Int.init)
            // A write answered 503 may or may not be there; every acknowledged one is, once.
            for acknowledgedValue in acknowledged {
                #expect(values.filter { $0 == acknowledgedValue }.count == 1, "value \(acknowledgedValue), node \(id)")
            }
            #expect(Set(values).count == values.count, "node \(id)")
        }
    }
}
