import DqliteClient
import Synchronization
import Testing

@testable import DqliteCluster

/// What a ClusterClient counts and reports to its observer (the cluster metrics of `GET /metrics`): round trips,
/// retries, unknown outcomes, leader changes.
@Suite(.timeLimit(.minutes(2)))
struct ClusterClientStatisticsTests {
    /// Records every event it is told of.
    final class RecordingObserver: ClusterClientObserver {
        struct Events {
            var roundTrips: [Duration] = []
            var retries = 0
            var outcomesUnknown = 0
            var leaders: [UInt64] = []
        }

        let events = Mutex(Events())

        func roundTrip(_ duration: Duration) { events.withLock { $0.roundTrips.append(duration) } }
        func retried() { events.withLock { $0.retries += 1 } }
        func outcomeUnknown() { events.withLock { $0.outcomesUnknown += 1 } }
        func leaderChanged(to id: UInt64) { events.withLock { $0.leaders.append(id) } }
    }

    private func client(_ server: FakeDqliteServer) -> ClusterClient {
        ClusterClient(
            members: [server.address],
            options: ClusterClient.Options(
                database: "test.db",
                callTimeout: .seconds(3),
                connection: DqliteConnection.Options(connectTimeout: .seconds(1), requestTimeout: .milliseconds(500))
            )
        )
    }

    /// Checks that a write refused as a non-leader and then answered counts one retry and two round trips (the
    /// refusal was an answer), told to the observer as they happen.
    @Test func retriedWrite_countsRetryAndRoundTrips() throws {
        let server = try FakeDqliteServer { server, type, seen in
            server.leaderAnswer(type)
                ?? (seen == 0
                    ? .answer(.failure(code: DqliteError.notLeaderCode, message: "not leader"))
                    : .answer(.result(DqliteExecResult(lastInsertID: 1, rowsAffected: 1))))
        }
        let client = client(server)
        let observer = RecordingObserver()
        client.setObserver(observer)
        _ = try client.exec("INSERT INTO t VALUES (1)")
        let statistics = client.statistics
        #expect(statistics.retries == 1)
        #expect(statistics.roundTrips == 2)
        #expect(statistics.outcomeUnknown == 0)
        #expect(statistics.roundTripTime > .zero)
        let events = observer.events.withLock { $0 }
        #expect(events.retries == 1)
        #expect(events.roundTrips.count == 2)
        #expect(events.roundTrips.reduce(.zero, +) == statistics.roundTripTime)
    }

    /// Checks that a write whose connection breaks after sending counts one unknown outcome, no retry and no round
    /// trip (no answer came).
    @Test func brokenWrite_countsOutcomeUnknown() throws {
        let server = try FakeDqliteServer { server, type, _ in server.leaderAnswer(type) ?? .close }
        let client = client(server)
        let observer = RecordingObserver()
        client.setObserver(observer)
        #expect(clusterError { try client.exec("INSERT INTO t VALUES (1)") }?.kind == .outcomeUnknown)
        #expect(client.statistics.outcomeUnknown == 1)
        #expect(client.statistics.retries == 0)
        #expect(client.statistics.roundTrips == 0)
        #expect(observer.events.withLock { $0.outcomesUnknown } == 1)
    }

    /// Checks on a real cluster that a leader handing its leadership over (``ClusterMember/leave(remove:)``) is
    /// one leader change, told to the observer with the new leader's id; transactions' statements are round trips.
    @Test func leaderLeaving_isOneLeaderChange() throws {
        let members = try formCluster()
        let client = ClusterClient(members: [members[2].address], options: clientOptions())
        let observer = RecordingObserver()
        client.setObserver(observer)
        _ = try client.exec("CREATE TABLE t(v INTEGER)")
        try client.transaction { transaction in
            _ = try transaction.exec("INSERT INTO t VALUES (1)")
        }
        // CREATE, BEGIN, INSERT, COMMIT.
        #expect(client.statistics.roundTrips == 4)
        #expect(client.leader?.id == 1)
        #expect(client.statistics.leaderChanges == 0)

        let outcome = try members[0].member.leave()
        let newLeader = try #require(outcome.transferredTo)
        try waitUntil("a write goes to the new leader") {
            (try? client.exec("INSERT INTO t VALUES (2)")) != nil && client.leader?.id == newLeader
        }
        #expect(client.statistics.leaderChanges == 1)
        #expect(client.leaderChanges == 1)
        #expect(observer.events.withLock { $0.leaders } == [newLeader])
    }
}
