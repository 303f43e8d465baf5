import Dispatch
import Foundation
import Synchronization
import Testing

/// `/transactions` on the cluster storage: one leader connection held per transaction, through any node; other
/// writers meet the leader's write lock and wait. On a shared cluster of its own
/// (``SharedCluster/Sharing/interactiveTransactions``): its transactions hold the lock across HTTP round trips.
@Suite(.serialized) struct ClusterTransactionsTests {
    /// Checks a write transaction opened through a follower: reads and writes in it, a failing request undoing
    /// only itself, nothing visible before the commit, everything after it on every node; the ID belongs to the
    /// node that opened it.
    @Test func writeTransactionThroughAFollower_commitsOnTheLeader() throws {
        let cluster = try SharedCluster.get(.interactiveTransactions)
        let table = uniqueTableName("ctxn")
        let followers = try cluster.followerIDs()
        let leader = try cluster.leaderID()
        try cluster.client(leader).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, n INTEGER)")
        try cluster.client(leader).update("INSERT INTO \(table) VALUES (1, 0)")
        let client = try cluster.client(followers[0])
        let id = try client.openTransactionID()
        let read = try client.step(id, #"{"sql": "SELECT n FROM \#(table) WHERE id = 1", "shape": "arrays"}"#)
        #expect(try read.json()["rows"]?[0]?[0]?.int64Value == 0, "\(read.bodyText)")
        #expect(try client.step(id, #"{"sql": "UPDATE \#(table) SET n = 5 WHERE id = 1"}"#).status == 200)
        let failing = try client.step(
            id,
            #"{"statements": [{"sql": "UPDATE \#(table) SET n = 99"}, {"sql": "SELECT nope FROM \#(table)"}]}"#
        )
        #expect(failing.status == 400)
        #expect(try failing.json()["error"]?["transaction_open"]?.boolValue == true)
        #expect(try failing.json()["error"]?["statement_index"]?.int64Value == 1)
        #expect(try cluster.client(followers[1]).step(id, #"{"sql": "SELECT 1"}"#).status == 404)
        #expect(try cluster.client(leader).scalarInt("SELECT n FROM \(table) WHERE id = 1") == 0)
        #expect(try client.end(id).bodyText == #"{"committed":true}"#)
        for node in [leader] + followers {
            #expect(try cluster.client(node).scalarInt("SELECT n FROM \(table) WHERE id = 1") == 5, "node \(node)")
        }
        #expect(try client.end(id).status == 404)
    }

    /// Checks a `read_only` transaction on the cluster: one snapshot while writes commit, writes refused.
    @Test func readOnly_seesOneSnapshot() throws {
        let cluster = try SharedCluster.get(.interactiveTransactions)
        let table = uniqueTableName("ctxn")
        let leader = try cluster.leaderID()
        try cluster.client(leader).update("CREATE TABLE \(table)(x INTEGER)")
        try cluster.client(leader).update("INSERT INTO \(table) VALUES (1)")
        let client = try cluster.client(try cluster.followerIDs()[0])
        let id = try client.openTransactionID(#"{"mode": "read_only"}"#)
        try cluster.client(leader).update("INSERT INTO \(table) VALUES (2)")
        let seen = try client.step(id, #"{"sql": "SELECT sum(x) FROM \#(table)", "shape": "arrays"}"#)
        #expect(try seen.json()["rows"]?[0]?[0]?.int64Value == 1, "\(seen.bodyText)")
        let write = try client.step(id, #"{"sql": "INSERT INTO \#(table) VALUES (3)"}"#)
        #expect(write.errorCode == "READONLY_STATEMENT")
        #expect(try client.end(id, "rollback").status == 200)
        #expect(try client.scalarInt("SELECT sum(x) FROM \(table)") == 3)
    }

    /// Checks that a write through another node waits for an open write transaction and runs once it commits,
    /// and that increments from clients on every node through transactions lose no update.
    @Test func writersWaitForTheTransaction_andNoUpdateIsLost() throws {
        let cluster = try SharedCluster.get(.interactiveTransactions)
        let table = uniqueTableName("ctxn")
        let leader = try cluster.leaderID()
        try cluster.client(leader).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try cluster.client(leader).update("INSERT INTO \(table) VALUES (1, 0)")
        let holder = try cluster.client(1)
        let id = try holder.openTransactionID()
        #expect(try holder.step(id, #"{"sql": "UPDATE \#(table) SET n = 10"}"#).status == 200)
        let waited = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let other = cluster.nodes[1].baseURL
        Thread {
            let client = try? HTTPTestClient(baseURL: other, timeoutSeconds: 10)
            let status = try? client?.postJSON("/update", text: #"{"sql": "UPDATE \#(table) SET n = n * 2"}"#).status
            waited.withLock { $0 = status }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(waited.withLock { $0 } == nil)
        #expect(try holder.end(id).status == 200)
        done.wait()
        #expect(waited.withLock { $0 } == 200)
        #expect(try holder.scalarInt("SELECT n FROM \(table) WHERE id = 1") == 20)

        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for node in [1, 2, 3, 1, 2, 3] {
            let baseURL = cluster.nodes[node - 1].baseURL
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let client = try HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
                    for _ in 0..<20 { try client.incrementInTransaction(table: table) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(try holder.scalarInt("SELECT n FROM \(table) WHERE id = 1") == 140)
    }

}
