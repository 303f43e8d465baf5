import Dispatch
import DqliteClient
import DqliteCluster
import Synchronization
import Testing

/// ClusterClient against real three-node clusters in this process: leader discovery, typed values, transactions,
/// failover.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClusterClientTests {
    /// Checks that writes through a client given only a follower's address reach the leader, with their row
    /// counts and insert ids, and that a client given only another member's address reads them back, every value
    /// typed exactly.
    @Test func writesThroughFollower_areReadBackThroughAnotherMember() throws {
        let members = try formCluster()
        let writer = ClusterClient(members: [members[1].address], options: clientOptions())
        _ = try writer.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB, n)")
        let row: [DqliteValue] = [.integer(.max), .float(-1.5), .text("héllo"), .blob([0, 1, 255]), .null]
        let inserted = try writer.exec("INSERT INTO t(i, f, s, b, n) VALUES (?, ?, ?, ?, ?)", parameters: row)
        #expect(inserted == DqliteExecResult(lastInsertID: 1, rowsAffected: 1))
        #expect(writer.leader?.id == 1)

        let reader = ClusterClient(members: [members[2].address], options: clientOptions())
        let rows = try reader.query("SELECT * FROM t WHERE i = ?", parameters: [.integer(.max)])
        #expect(rows.columns == ["id", "i", "f", "s", "b", "n"])
        #expect(rows.rows == [[.integer(1)] + row])
        let refused = clusterError { try reader.exec("INSERT INTO missing VALUES (1)") }
        #expect(refused?.kind == .failure)
        #expect(refused?.code == 1)
    }

    /// Checks that a transaction's statements commit together, that a body that throws rolls back, and that a
    /// statement failing inside leaves the transaction open.
    @Test func transaction_commitsOrRollsBack() throws {
        let members = try formCluster()
        let client = ClusterClient(members: [members[2].address], options: clientOptions())
        _ = try client.exec("CREATE TABLE t(v INTEGER UNIQUE)")
        let count = try client.transaction { transaction in
            _ = try transaction.exec("INSERT INTO t VALUES (1)")
            #expect(clusterError { try transaction.exec("INSERT INTO t VALUES (1)") }?.kind == .failure)
            _ = try transaction.exec("INSERT INTO t VALUES (2)")
            return try transaction.query("SELECT count(*) FROM t").rows
        }
        #expect(count == [[.integer(2)]])

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try client.transaction { transaction in
                _ = try transaction.exec("INSERT INTO t VALUES (3)")
                throw Abandon()
            }
        }
        #expect(try client.query("SELECT v FROM t ORDER BY v").rows == [[.integer(1)], [.integer(2)]])
    }

    /// Stops the leader under four concurrent writers: the client finds the new leader and writes resume (the
    /// time is printed); every write ended as success, `outcomeUnknown` or `unavailable`; every acknowledged
    /// write is present once, an unavailable one absent, and none is duplicated (no silent retry).
    @Test func failover_afterLeaderStops_writesResume() throws {
        let members = try formCluster()
        let client = ClusterClient(members: [members[1].address, members[2].address], options: clientOptions())
        _ = try client.exec("CREATE TABLE w(writer INTEGER, seq INTEGER)")
        #expect(client.leader?.id == 1)

        struct Outcomes {
            var succeeded: Set<[Int64]> = []
            var unknown: Set<[Int64]> = []
            var unavailable: Set<[Int64]> = []
            var other: [String] = []
        }
        let outcomes = Mutex(Outcomes())
        let stopping = Atomic<Bool>(false)
        let group = DispatchGroup()
        for writer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                var seq: Int64 = 0
                while !stopping.load(ordering: .relaxed) {
                    seq += 1
                    let key = [Int64(writer), seq]
                    do {
                        _ = try client.exec(
                            "INSERT INTO w VALUES (?, ?)",
                            parameters: [.integer(key[0]), .integer(key[1])]
                        )
                        outcomes.withLock { _ = $0.succeeded.insert(key) }
                    } catch let error as ClusterError where error.kind == .outcomeUnknown {
                        outcomes.withLock { _ = $0.unknown.insert(key) }
                    } catch let error as ClusterError where error.kind == .unavailable {
                        outcomes.withLock { _ = $0.unavailable.insert(key) }
                    } catch {
                        outcomes.withLock { $0.other.append("\(error)") }
                    }
                }
            }
        }
        try waitUntil("writes flow") { outcomes.withLock { $0.succeeded.count } >= 20 }

        let stopped = ContinuousClock.now
        try members[0].member.stop()
        let stopTook = ContinuousClock.now - stopped
        let before = outcomes.withLock { $0.succeeded.count }
        let probe = try client.exec("INSERT INTO w VALUES (-1, -1)")
        let failover = ContinuousClock.now - stopped
        print(
            "failover: the first write after stopping the leader succeeded \(failover) after the stop began "
                + "(DqliteNode.stop() itself took \(stopTook))"
        )
        #expect(probe.rowsAffected == 1)
        try waitUntil("writers succeed on the new leader") { outcomes.withLock { $0.succeeded.count } > before + 20 }
        stopping.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 30) == .success)

        let leader = try #require(client.leader)
        #expect([2, 3].contains(leader.id))
        #expect(client.leaderChanges >= 1)
        let final = outcomes.withLock { $0 }
        print(
            "failover writes: \(final.succeeded.count) acknowledged, \(final.unknown.count) outcome unknown, "
                + "\(final.unavailable.count) unavailable"
        )
        #expect(final.other.isEmpty, "unexpected errors: \(final.other.prefix(3))")

        let rows = try client.query("SELECT writer, seq, count(*) FROM w WHERE writer >= 0 GROUP BY writer, seq")
        var present: Set<[Int64]> = []
        for row in rows.rows {
            guard case .integer(let writer) = row[0], case .integer(let seq) = row[1],
                case .integer(let copies) = row[2]
            else {
                Issue.record("unexpected row \(row)")
                continue
            }
            #expect(copies == 1, "write \(writer)/\(seq) is present \(copies) times")
            present.insert([writer, seq])
        }
        #expect(final.succeeded.isSubset(of: present))
        #expect(final.unavailable.isDisjoint(with: present))
        #expect(present.isSubset(of: final.succeeded.union(final.unknown)))
    }
}
