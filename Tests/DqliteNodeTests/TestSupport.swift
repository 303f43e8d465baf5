import DqliteClient
import DqliteNode
import Foundation
import Glibc
import LoopbackTestSupport
import Testing

/// A started dqlite node on 127.0.0.1 with its own data directory, stopped and removed when released.
final class TestNode {
    let directory: TemporaryDirectory
    let node: DqliteNode
    let address: String
    var id: UInt64 { node.configuration.id }

    init(id: UInt64 = 1) throws {
        directory = try TemporaryDirectory()
        address = "127.0.0.1:\(try freeLoopbackPort())"
        // 20 ms of latency: heartbeats every 30 ms, elections after 300 ms, so cluster tests settle quickly.
        node = try DqliteNode(
            configuration: DqliteNodeConfiguration(
                id: id,
                address: address,
                dataDirectory: directory.path,
                networkLatencyMilliseconds: 20
            )
        )
        try node.start()
    }

    deinit {
        try? node.stop()
    }

    /// A client connection to this node, with short deadlines so that a hung test fails fast.
    func connect() throws -> DqliteConnection {
        try DqliteConnection(address: address, options: testOptions)
    }

    /// A connection to this node once it knows a leader (it elects itself when it is the only voter).
    func connectWhenLeaderKnown() throws -> DqliteConnection {
        let connection = try connect()
        try waitUntil("node \(id) knows a leader") { try connection.leader() != nil }
        return connection
    }
}

let testOptions = DqliteConnection.Options(connectTimeout: .seconds(5), requestTimeout: .seconds(15))

/// Polls `condition` every 20 ms until it holds; fails the test after `timeout`.
func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(15),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw WaitTimeout()
}

struct WaitTimeout: Error {}

/// The error `body` throws, as a DqliteError (the test fails when it throws nothing or something else).
func dqliteError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> DqliteError? {
    do {
        _ = try body()
        Issue.record("expected a DqliteError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as DqliteError {
        return error
    } catch {
        Issue.record("expected a DqliteError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
