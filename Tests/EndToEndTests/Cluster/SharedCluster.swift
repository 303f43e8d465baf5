import Foundation
import LoopbackTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Three real `sqlited` processes in cluster mode on 127.0.0.1, each with its own HTTP port, Raft port and data
/// directory: node 1 bootstraps, node 2 joins through node 1, node 3 through node 2. The cluster end-to-end suites
/// share one (``get(_:)``; each that holds the leader's write lock on purpose has another), started on first use
/// and killed, its directories removed, when the test process exits; a test that stops nodes starts its own (``init(networkLatencyMilliseconds:)``), killed when it is released, and may start a killed
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

    /// - Parameter networkLatencyMilliseconds: `cluster.network_latency_ms` of every node (the election timeout is
    ///   15 times it); nil keeps dqlite's default (3 s). A cluster whose nodes are killed takes 20 ms, so that a new
    ///   leader comes within a second; the shared cluster, whose nodes are never killed, keeps the default, so
    ///   that a test process starving the nodes of CPU for a few hundred milliseconds starts no election.
    init(networkLatencyMilliseconds: Int? = 20) throws {
        directory = try TemporaryDirectory(prefix: "sqlited-e2ecluster")
        backupDirectory = directory.path("backups")
        var nodes: [Node] = []
        var processes: [ServerProcess] = []
        var launches: [(arguments: [String], environment: [String: String])] = []
        for id in 1...3 {
            // Ports below the ephemeral range: a node killed and started again (``restart(_:)``) binds the same
            // ones, which an outgoing connection could otherwise have taken meanwhile.
            let raftAddress = "127.0.0.1:\(try restartableLoopbackPort())"
            var arguments = [
                "--host", "127.0.0.1", "--port", "\(try restartableLoopbackPort())",
                "--database", directory.path("unused-\(id).sqlite").path,
                "--cluster-node-id", "\(id)",
                "--cluster-address", raftAddress,
                "--cluster-data-dir", directory.path("node\(id)").path,
            ]
            if let previous = nodes.last {
                arguments += ["--cluster-join", previous.raftAddress]
            }
            var environment = ["SQLITED_BACKUP_DIRECTORY": backupDirectory.path]
            if let networkLatencyMilliseconds {
                environment["SQLITED_CLUSTER_NETWORK_LATENCY_MS"] = "\(networkLatencyMilliseconds)"
            }
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

    /// Which shared cluster a suite uses: most share one; a suite that holds the leader's write lock on purpose for
    /// a while has one of its own, so that it neither makes the others' writes wait (past their time limit, under a
    /// loaded test process) nor finds the lock held by theirs.
    enum Sharing: Hashable, Sendable {
        case everyone
        /// ClusterGroupCommitTests: a raw wire client holds the lock to queue writes behind it.
        case heldLeaderLock
        /// ClusterTransactionsTests: interactive transactions hold the lock across HTTP round trips.
        case interactiveTransactions
    }

    /// The shared clusters started so far; each is killed, its directories removed, when the process exits.
    private static let running = Mutex<[Sharing: Result<SharedCluster, ClusterStartError>]>([:])

    /// Why a shared cluster could not start (each later ``get(_:)`` reports it again).
    struct ClusterStartError: Error, CustomStringConvertible {
        let description: String
    }

    private static func stopRunning() {
        let clusters = running.withLock { running in
            defer { running = [:] }
            return running.values.compactMap { try? $0.get() }
        }
        for cluster in clusters {
            for process in cluster.processes {
                _ = process.kill()
            }
            try? FileManager.default.removeItem(at: cluster.directory.url)
        }
    }

    /// Registers ``stopRunning()`` with `atexit` once.
    private static let stopsAtExit: Void = { atexit { SharedCluster.stopRunning() } }()

    /// The shared cluster for `sharing`, starting it if this is the first call for it.
    static func get(_ sharing: Sharing = .everyone) throws -> SharedCluster {
        try running.withLock { running in
            if let started = running[sharing] { return started }
            _ = stopsAtExit
            let started = Result { () throws(ClusterStartError) -> SharedCluster in
                do {
                    return try SharedCluster(networkLatencyMilliseconds: nil)
                } catch {
                    throw ClusterStartError(description: "the shared cluster did not start: \(error)")
                }
            }
            running[sharing] = started
            return started
        }.get()
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
