import DqliteClient
import DqliteNode
import Foundation
import Glibc
import LoopbackTestSupport
import Testing

/// The node wrapper's lifecycle and its refusals.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct DqliteNodeTests {
    /// Checks that a missing data directory and a zero id are refused before dqlite is called.
    @Test func create_refusesMissingDirectoryAndZeroId() throws {
        let missing = DqliteNodeConfiguration(id: 1, address: "127.0.0.1:1", dataDirectory: "/nonexistent/dqlite")
        #expect(throws: DqliteNodeError.self) { try DqliteNode(configuration: missing) }
        do {
            _ = try DqliteNode(configuration: missing)
        } catch {
            #expect(error.kind == .invalidConfiguration)
            #expect(error.message.contains("/nonexistent/dqlite"))
        }
        let directory = try TemporaryDirectory()
        let zero = DqliteNodeConfiguration(id: 0, address: "127.0.0.1:1", dataDirectory: directory.path)
        #expect(throws: DqliteNodeError.self) { try DqliteNode(configuration: zero) }
    }

    /// Checks that an address already in use fails at creation (dqlite binds in `set_bind_address`).
    @Test func create_refusesAddressInUse() throws {
        let first = try TestNode()
        let directory = try TemporaryDirectory()
        do {
            _ = try DqliteNode(
                configuration: DqliteNodeConfiguration(id: 2, address: first.address, dataDirectory: directory.path)
            )
            Issue.record("a second node bound \(first.address)")
        } catch {
            #expect(error.kind == .library)
            #expect(error.function == "dqlite_node_set_bind_address")
            #expect(error.message.contains("Address already in use"))
        }
    }

    /// Checks start, a refused second start, and stop (twice: the second does nothing).
    @Test func startStop_lifecycle() throws {
        let directory = try TemporaryDirectory()
        let address = "127.0.0.1:\(try freeLoopbackPort())"
        let node = try DqliteNode(
            configuration: DqliteNodeConfiguration(id: 1, address: address, dataDirectory: directory.path)
        )
        #expect(!node.isRunning)
        try node.start()
        #expect(node.isRunning)
        do {
            try node.start()
            Issue.record("a node started twice")
        } catch {
            #expect(error.kind == .misuse)
        }
        let connection = try DqliteConnection(address: address, options: testOptions)
        #expect(try connection.cluster().count == 1)
        try node.stop()
        #expect(!node.isRunning)
        try node.stop()
        // The stopped node closed its client connections.
        #expect(dqliteError { try connection.cluster() }.map { [.connectionClosed, .io].contains($0.kind) } == true)
        #expect(dqliteError { try DqliteConnection(address: address, options: testOptions) }?.kind == .io)
    }

    /// Checks that the node keeps its Raft state in the data directory and restarts from it.
    @Test func restart_keepsData() throws {
        let directory = try TemporaryDirectory()
        let address = "127.0.0.1:\(try freeLoopbackPort())"
        let configuration = DqliteNodeConfiguration(id: 1, address: address, dataDirectory: directory.path)
        do {
            let node = try DqliteNode(configuration: configuration)
            try node.start()
            let connection = try DqliteConnection(address: address, options: testOptions)
            try waitUntil("the node elects itself") { try connection.leader() != nil }
            let db = try connection.open("keep.db")
            _ = try connection.exec(sql: "CREATE TABLE k(x); INSERT INTO k VALUES (42)", database: db)
            try node.stop()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty == false)
        let node = try DqliteNode(configuration: configuration)
        try node.start()
        defer { try? node.stop() }
        let connection = try DqliteConnection(address: address, options: testOptions)
        try waitUntil("the restarted node elects itself") { try connection.leader() != nil }
        let db = try connection.open("keep.db")
        #expect(try connection.query(sql: "SELECT x FROM k", database: db).rows == [[.integer(42)]])
    }
}
