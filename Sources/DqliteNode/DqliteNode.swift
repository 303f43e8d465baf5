internal import CDqlite
import Glibc
import Synchronization

/// One dqlite node embedded in this process: a Raft member that serves the dqlite wire protocol on its address.
///
/// Lifecycle: `init` (`dqlite_node_create`, `dqlite_node_set_bind_address`: the listening socket is bound here, so a
/// port in use fails at once), ``start()``, ``stop()``, then release (`dqlite_node_destroy`, after stopping if the
/// node still runs). A node is started at most once.
///
/// Threads: ``start()`` spawns the node's own thread, which runs a libuv loop until ``stop()``. All of the node's
/// work happens there: Raft, the wire protocol, and the SQLite connections of the databases it serves, which it opens
/// itself with `sqlite3_open_v2` on a VFS it registers (`"dqlite-<n>"`). The process talks to the node only through
/// its socket, with a wire-protocol client. The methods of this type may be called from any thread; a lock
/// serializes them, as the C functions are not safe to call concurrently on one node.
///
/// Signals: libuv writes to sockets with `write(2)`, so ``start()`` sets `SIGPIPE` to ignored when it is still at
/// its default action (terminate the process).
///
/// Related dqlite documentation: `/usr/include/dqlite.h` (dqlite 1.11).
public final class DqliteNode: Sendable {
    private enum State {
        case created
        case running
        /// Stopped, or a start that failed: the node cannot be started again.
        case finished
    }

    private struct Storage {
        var node: OpaquePointer
        var state: State
    }

    /// dqlite names each node's VFS from a process-wide counter that its `config__init` increments without a
    /// lock, so nodes are created one at a time.
    private static let creationLock = Mutex(())

    public let configuration: DqliteNodeConfiguration
    private let storage: Mutex<Storage>

    /// Creates the node and binds its listening socket; the node does not run until ``start()``.
    ///
    /// - Throws: ``DqliteNodeError`` with kind `.invalidConfiguration` when the id is 0, an address is empty or the
    ///   data directory does not exist; `.library` when dqlite refuses the node or cannot bind the address.
    public init(configuration: DqliteNodeConfiguration) throws(DqliteNodeError) {
        try Self.validate(configuration)
        self.configuration = configuration
        let node = try Self.create(configuration)
        do {
            try Self.configure(node, configuration)
        } catch {
            dqlite_node_destroy(node)
            throw error
        }
        storage = Mutex(Storage(node: node, state: .created))
    }

    deinit {
        storage.withLock { storage in
            if storage.state == .running {
                _ = dqlite_node_stop(storage.node)
            }
            dqlite_node_destroy(storage.node)
        }
    }

    /// Starts the node's thread and returns once it accepts connections.
    ///
    /// The node with id 1 bootstraps a one-voter cluster on its first start (a no-op when its data directory
    /// already holds Raft state) and soon elects itself; other nodes wait until the leader adds them.
    ///
    /// - Throws: ``DqliteNodeError`` `.misuse` when the node was already started, `.library` when dqlite fails
    ///   (unusable data directory, corrupt Raft state, ...). A node whose start failed cannot be started again.
    public func start() throws(DqliteNodeError) {
        try storage.withLock { (storage: inout Storage) throws(DqliteNodeError) in
            guard storage.state == .created else {
                throw DqliteNodeError(kind: .misuse, message: "the dqlite node was already started")
            }
            Self.ignoreSIGPIPEIfDefault()
            let code = dqlite_node_start(storage.node)
            guard code == 0 else {
                // dqlite_node_stop joins the node's thread, which may never have been created: never called here.
                storage.state = .finished
                throw Self.libraryError("dqlite_node_start", code, storage.node)
            }
            storage.state = .running
        }
    }

    /// Stops the node: it stops accepting connections, completes requests in flight, closes its client
    /// connections and its thread exits. Blocks until then. Does nothing when the node is not running.
    ///
    /// - Throws: ``DqliteNodeError`` `.library` when the node's loop ended with an error.
    public func stop() throws(DqliteNodeError) {
        try storage.withLock { (storage: inout Storage) throws(DqliteNodeError) in
            let wasRunning = storage.state == .running
            storage.state = .finished
            guard wasRunning else { return }
            let code = dqlite_node_stop(storage.node)
            guard code == 0 else {
                throw Self.libraryError("dqlite_node_stop", code, storage.node)
            }
        }
    }

    /// Whether the node's thread runs (started and not stopped).
    public var isRunning: Bool {
        storage.withLock { $0.state == .running }
    }

    private static func validate(_ configuration: DqliteNodeConfiguration) throws(DqliteNodeError) {
        guard configuration.id > 0 else {
            throw DqliteNodeError(kind: .invalidConfiguration, message: "a dqlite node id must be positive")
        }
        guard !configuration.address.isEmpty, configuration.bindAddress?.isEmpty != true else {
            throw DqliteNodeError(kind: .invalidConfiguration, message: "a dqlite node address must not be empty")
        }
        var info = stat()
        guard stat(configuration.dataDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DqliteNodeError(
                kind: .invalidConfiguration,
                message: "the dqlite data directory does not exist: \(configuration.dataDirectory)"
            )
        }
    }

    private static func create(_ configuration: DqliteNodeConfiguration) throws(DqliteNodeError) -> OpaquePointer {
        var node: OpaquePointer?
        let code = creationLock.withLock { _ in
            dqlite_node_create(configuration.id, configuration.address, configuration.dataDirectory, &node)
        }
        guard code == 0, let node else {
            let error = libraryError("dqlite_node_create", code == 0 ? 1 : code, node)
            // A failure late in dqlite__init returns the half-built node; destroying it releases what was built.
            if let node { dqlite_node_destroy(node) }
            throw error
        }
        return node
    }

    private static func configure(
        _ node: OpaquePointer,
        _ configuration: DqliteNodeConfiguration
    ) throws(DqliteNodeError) {
        let bindAddress = configuration.bindAddress ?? configuration.address
        errno = 0
        let bindCode = dqlite_node_set_bind_address(node, bindAddress)
        if bindCode != 0 {
            // dqlite sets no message here; errno still holds the socket(2) or bind(2) failure.
            let reason = errno == 0 ? "cannot listen" : String(cString: strerror(errno))
            throw DqliteNodeError(
                kind: .library,
                function: "dqlite_node_set_bind_address",
                code: bindCode,
                message: "\(bindAddress): \(reason)"
            )
        }
        // Raft's connections to the other nodes with TCP_NODELAY (see RaftConnector); cannot fail before start.
        _ = dqlite_node_set_connect_func(node, RaftConnector.connect, nil)
        if let latency = configuration.networkLatencyMilliseconds {
            let code = dqlite_node_set_network_latency_ms(node, latency)
            guard code == 0 else {
                throw DqliteNodeError(
                    kind: .invalidConfiguration,
                    function: "dqlite_node_set_network_latency_ms",
                    code: code,
                    message: "the network latency must be between 1 ms and 3600000 ms, not \(latency)"
                )
            }
        }
    }

    private static func libraryError(_ function: String, _ code: Int32, _ node: OpaquePointer?) -> DqliteNodeError {
        var message = node.map { String(cString: dqlite_node_errmsg($0)) } ?? ""
        if message.isEmpty {
            message = "dqlite error \(code)"
        }
        return DqliteNodeError(kind: .library, function: function, code: code, message: message)
    }

    private static func ignoreSIGPIPEIfDefault() {
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0 else { return }
        if current.__sigaction_handler.sa_handler == nil && current.sa_flags & SA_SIGINFO == 0 {
            _ = signal(SIGPIPE, SIG_IGN)
        }
    }
}
