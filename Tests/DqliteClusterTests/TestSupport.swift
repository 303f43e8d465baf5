import DqliteClient
import DqliteCluster
import Foundation
import Glibc
import LoopbackTestSupport
import SQLiteService
import Testing

/// Short connection deadlines, so that a hung test fails fast.
let testConnectionOptions = DqliteConnection.Options(connectTimeout: .seconds(2), requestTimeout: .seconds(10))

/// The configuration of a test member on 127.0.0.1: 20 ms of network latency (heartbeats every 30 ms,
/// elections after 300 ms), so that joins and failovers settle quickly.
func memberConfiguration(
    id: UInt64,
    address: String,
    directory: TemporaryDirectory,
    join: [String] = []
) -> ClusterMemberConfiguration {
    ClusterMemberConfiguration(
        id: id,
        address: address,
        dataDirectory: directory.path,
        join: join,
        networkLatencyMilliseconds: 20,
        joinTimeout: .seconds(20),
        leaveTimeout: .seconds(10),
        connectionOptions: testConnectionOptions
    )
}

/// A cluster member of a test with its own data directory, which outlives the member so that it can restart.
final class TestMember {
    let id: UInt64
    let address: String
    let directory: TemporaryDirectory
    private(set) var member: ClusterMember
    private(set) var startOutcome: ClusterMember.StartOutcome

    init(id: UInt64, join: [String] = []) throws {
        // Every cluster of these tests runs with the service's SQL policy on the leader's connections, as the
        // daemon's will (process-wide; later calls with the same limits change nothing).
        try LeaderPolicy.register()
        self.id = id
        address = "127.0.0.1:\(try freeLoopbackPort())"
        directory = try TemporaryDirectory()
        member = try ClusterMember(
            configuration: memberConfiguration(id: id, address: address, directory: directory, join: join)
        )
        startOutcome = try member.start()
    }

    deinit {
        try? member.stop()
    }

    /// Stops the node, then starts a new member on the same address and data directory with `join`.
    func restart(join: [String] = []) throws {
        try member.stop()
        member = try ClusterMember(
            configuration: memberConfiguration(id: id, address: address, directory: directory, join: join)
        )
        startOutcome = try member.start()
    }
}

/// Three members: node 1 bootstraps, node 2 joins through node 1, node 3 through node 2.
func formCluster() throws -> [TestMember] {
    let first = try TestMember(id: 1)
    let second = try TestMember(id: 2, join: [first.address])
    let third = try TestMember(id: 3, join: [second.address])
    return [first, second, third]
}

/// Client options of the tests: the database `test.db`, short deadlines.
func clientOptions(callTimeout: Duration = .seconds(15)) -> ClusterClient.Options {
    ClusterClient.Options(database: "test.db", callTimeout: callTimeout, connection: testConnectionOptions)
}

/// Polls `condition` every 20 ms until it holds; fails the test after `timeout`.
func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(15),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return }
        usleep(20_000)
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw WaitTimeout()
}

struct WaitTimeout: Error {}

/// The ClusterError `body` throws (the test fails when it throws nothing or something else).
func clusterError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> ClusterError? {
    do {
        _ = try body()
        Issue.record("expected a ClusterError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ClusterError {
        return error
    } catch {
        Issue.record("expected a ClusterError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
