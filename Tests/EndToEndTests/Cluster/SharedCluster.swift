import Foundation
import LoopbackTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Three real `sqlited` processes in cluster mode on 127.0.0.1, each with its own HTTP port, Raft port and data
/// directory: node 1 bootstraps, node 2 joins through node 1, node 3 through node 2. One is shared by the cluster
/// end-to-end suites (``get()``), started on first use and killed, its directories removed, when the test process
/// exits; a test that stops nodes starts its own (``init()``), killed when it is released, and may start a killed
/// node again (``restart(_:)``) on its HTTP port, Raft address and data directory.
///
/// Every start and request is bounded in time: each process must announce its listener within 60 s (a join waits
/// for the leader), and clients time out after 10 s.
///
/// `@unchecked Sendable`: only the immutable `nodes` are read from several threads; the processes are touched by
/// ``kill(_:)`` and ``restart(_:)``, called only by the one test that owns the cluster (never for the shared one),
/// and by the exit handler, after every test has finished.
final class SharedCluster: @unchecked Sendable {
    /// One node: its HTTP base URL, its Raft address and id.
    struct Node: Sendable {
        let id: Int
        let baseURL: String
        let raftAddress: String
    }

    let nodes: [Node]
    /// Every node's `backup.directory`.
    let backupDirectory: URL
    private var processes: [ServerProcess]
    /// Each node's command line and environment, to start it again.
    private let launches: [(arguments: [String], environment: [String: String])]
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "sqlited-e2ecluster")
        backupDirectory = directory.path("backups")
        var nodes: [Node] = []
        var processes: [ServerProcess] = []
        var launches: [(arguments: [String], environment: [String: String])] = []
        for id in 1...3 {
            let raftAddress = "127.0.0.1:\(try freeLoopbackPort())"
            var arguments = [
                "--host", "127.0.0.1", "--port", "0",
                "--database", directory.path("unused-\(id).sqlite").path,
                "--cluster-node-id", "\(id)",
                "--cluster-address", raftAddress,
                "--cluster-data-dir", directory.path("node\(id)").path,
            ]
            if let previous = nodes.last {
                arguments += ["--cluster-join", previous.raftAddress]
            }
            let environment = [
                "SQLITED_CLUSTER_NETWORK_LATENCY_MS": "20", "SQLITED_BACKUP_DIRECTORY": backupDirectory.path,
            ]
            let process = try Self.start(arguments: arguments, environment: environment)
            processes.append(process)
            launches.append((arguments, environment))
            nodes.append(Node(id: id, baseURL: process.baseURL, raftAddress: raftAddress))
        }
        self.nodes = nodes
        self.processes = processes
        self.launches = launches
    }

    private static func start(arguments: [String], environment: [String: String]) throws -> ServerProcess {
        try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: arguments,
            environment: environment,
            startupTimeoutSeconds: 60
        )
    }

    deinit {
        for process in processes where process.isRunning {
            _ = process.kill()
        }
        try? FileManager.default.removeItem(at: directory.url)
    }

    /// Kills node `id` with SIGKILL (no leadership transfer, no goodbye to the others).
    func kill(_ id: Int) {
        _ = processes[id - 1].kill()
    }

    /// What node `id`'s process wrote on standard error so far (its log), line by line.
    func standardError(_ id: Int) -> [String] {
        processes[id - 1].stderrLines
    }

    /// Stops node `id` with SIGTERM (the node's orderly shutdown: a leader hands its leadership over first) and
    /// waits for it to exit, at most `timeoutSeconds`.
    func terminate(_ id: Int, timeoutSeconds: Double = 30) throws {
        _ = try processes[id - 1].stop(signal: SIGTERM, timeoutSeconds: timeoutSeconds)
    }

    /// Starts node `id` again after ``kill(_:)``, with its data directory (so it only starts: the membership is
    /// recorded there), its Raft address and the HTTP port it had, so ``nodes`` stays true.
    func restart(_ id: Int) throws {
        let launch = launches[id - 1]
        let port = String(nodes[id - 1].baseURL.split(separator: ":").last ?? "0")
        var arguments = launch.arguments
        if let portFlag = arguments.firstIndex(of: "--port") {
            arguments[portFlag + 1] = port
        }
        processes[id - 1] = try Self.start(arguments: arguments, environment: launch.environment)
    }

    private static let started: Result<SharedCluster, any Error> = {
        let result = Result { try SharedCluster() }
        if case .success(let cluster) = result {
            running.withLock { $0 = cluster }
            atexit { SharedCluster.stopRunning() }
        }
        return result
    }()

    private static let running = Mutex<SharedCluster?>(nil)

    private static func stopRunning() {
        guard let cluster = running.withLock({ $0.take() }) else { return }
        for process in cluster.processes {
            _ = process.kill()
        }
        try? FileManager.default.removeItem(at: cluster.directory.url)
    }

    /// The shared cluster, starting it if this is the first call.
    static func get() throws -> SharedCluster {
        try started.get()
    }

    /// A client of node `id` (1, 2 or 3).
    func client(_ id: Int) throws -> HTTPTestClient {
        try HTTPTestClient(baseURL: nodes[id - 1].baseURL, timeoutSeconds: 10)
    }

    /// The id of the leader as node `reporter` sees it (`GET /cluster`).
    func leaderID(asSeenBy reporter: Int = 1) throws -> Int {
        let status = try client(reporter).get("/cluster").json()
        guard let id = status["leader"]?["id"]?.int64Value else {
            throw ClusterTestError("node \(reporter) knows no leader: \(status)")
        }
        return Int(id)
    }

    /// Two nodes that are not the leader.
    func followerIDs() throws -> [Int] {
        let leader = try leaderID()
        return [1, 2, 3].filter { $0 != leader }
    }
}

/// A failed precondition of a cluster test.
struct ClusterTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
