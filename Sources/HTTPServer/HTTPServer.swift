import Dispatch
import Glibc
public import Logging
import Synchronization

/// A hardened HTTP/1.1 server on non-blocking POSIX sockets and Dispatch.
///
/// Connections are spread over a few event loops (`HTTPServerConfiguration.eventLoopCount`), each a serial queue
/// that serves the I/O of its connections in turns driven by one DispatchSource (see `EventLoop`). A request is
/// offered to the handler on its loop first (`HTTPHandler.handleOnEventLoop`); what the handler does not answer
/// there runs on a separate pool of threads (`HTTPServerConfiguration.handlerThreadCount`), so a slow handler never
/// delays other connections' I/O. One request at a time per connection. Protocol handling follows RFC 9112 and RFC 9110 strictly (see `RequestParser`),
/// and every resource is bounded by `HTTPLimits`. Call `shutdown` before dropping a started server.
public final class HTTPServer: Sendable {
    private enum Phase {
        case created
        case running
        case shuttingDown
        case stopped
    }

    private struct State {
        var phase = Phase.created
        var listeners: [Listener] = []
        var loops: [EventLoop] = []
        var boundAddresses: [BoundAddress] = []
        var openListeners = 0
        var connections: [ObjectIdentifier: HTTPConnection] = [:]
        var shutdownWaiters: [@Sendable () -> Void] = []
    }

    let configuration: HTTPServerConfiguration
    /// The configured `Server` field value when it is a valid field value (checked once, not per response); nil
    /// sends none.
    let serverHeader: String?
    let handler: any HTTPHandler
    let logger: Logger
    let handlerPool: HandlerThreadPool
    private let acceptQueue = DispatchQueue(label: "sqlited.http.accept")
    /// The loops connections are spread over (set once by `start()`), and the count of connections assigned so far.
    private let loops = Mutex<[EventLoop]>([])
    private let assigned = Atomic<Int>(0)
    private let state = Mutex(State())
    /// Set when a graceful shutdown begins; read (without the state lock) by every response, which then carries
    /// `Connection: close` even when its handler was already running on its connection's queue.
    let isShuttingDown = Atomic(false)
    private let limits: Mutex<HTTPLimits>
    /// Refused connections not yet logged, and when the last log line was written: under a flood, one line per
    /// interval rather than one per connection.
    private let refusals = Mutex<(lastLogged: ContinuousClock.Instant?, count: Int)>((nil, 0))

    /// Creates a server; nothing happens until `start()`.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger) {
        self.configuration = configuration
        serverHeader = configuration.serverHeader.flatMap { ResponseHead.isValidValue($0) ? $0 : nil }
        self.handler = handler
        self.logger = logger
        self.limits = Mutex(configuration.limits)
        self.handlerPool = HandlerThreadPool(
            threadCount: configuration.handlerThreadCount,
            name: "http handler"
        )
    }

    /// The addresses listened on, with real ports (empty before `start()`).
    public var boundAddresses: [BoundAddress] {
        state.withLock { $0.boundAddresses }
    }

    /// The event loops (for tests).
    var eventLoops: [EventLoop] {
        loops.withLock { $0 }
    }

    /// The number of event loops serving connections (0 before `start()`).
    public var eventLoopCount: Int {
        loops.withLock { $0.count }
    }

    /// The number of open client connections.
    public var openConnectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Descriptors of accepted connections not closed yet: what a leak of this server's would show (the process's
    /// own count also moves with everything else the process opens).
    let connectionDescriptors = Atomic<Int>(0)

    /// The limits that new requests get.
    public var currentLimits: HTTPLimits {
        limits.withLock { $0 }
    }

    /// Changes the limits; they apply to requests that start after the call (a request in progress keeps its
    /// limits; existing keep-alive connections pick them up at their next request).
    public func setLimits(_ newLimits: HTTPLimits) {
        limits.withLock { $0 = newLimits }
        refreshLimits(of: loops.withLock { $0 })
    }

    /// Has each loop take the limits in force when it gets to it: of several updates racing, the last to run reads
    /// the newest limits, whatever order they were queued in.
    private func refreshLimits(of loops: [EventLoop]) {
        for loop in loops {
            loop.queue.async { [self] in
                let latest = currentLimits
                loop.setLimits(latest, tickInterval: Self.tickInterval(for: latest))
            }
        }
    }

    /// How often the loops check deadlines: a quarter of the shortest timeout, between 10 ms and 1 s.
    static func tickInterval(for limits: HTTPLimits) -> DispatchTimeInterval {
        let shortest =
            [
                limits.headTimeout, limits.bodyInactivityTimeout, limits.idleTimeout, limits.sendTimeout,
                limits.streamStallTimeout, HTTPConnection.lingerTime,
            ].min() ?? .seconds(1)
        return max(.milliseconds(10), min(.seconds(1), shortest / 4)).dispatchInterval
    }

    /// Binds and listens on every configured address (or adopts inherited descriptors) and starts accepting.
    ///
    /// - Throws: `HTTPServerError` when an address cannot be used; no listener is left open then.
    public func start() throws {
        try state.withLock { state throws(HTTPServerError) in
            guard state.phase == .created else {
                throw HTTPServerError(code: .invalidState, message: "server already started or stopped")
            }
            state.phase = .running
        }
        let backlog = currentLimits.listenBacklog
        var listeners: [Listener] = []
        var eventLoops: [EventLoop] = []
        do {
            let interval = Self.tickInterval(for: currentLimits)
            for index in 0..<max(1, configuration.eventLoopCount) {
                eventLoops.append(try EventLoop(index: index, limits: currentLimits, tickInterval: interval))
            }
            for address in configuration.listeners {
                let (fd, bound) = try Socket.listen(on: address, backlog: backlog)
                var unlinkPath: String?
                if case .unix(let path) = address { unlinkPath = path }
                listeners.append(
                    Listener(
                        fd: fd,
                        address: bound,
                        unlinkPath: unlinkPath,
                        queue: acceptQueue,
                        onAcceptable: { [self] listener in acceptConnections(from: listener) },
                        onClosed: { [self] in listenerDidClose() }
                    )
                )
            }
        } catch {
            for loop in eventLoops {
                loop.queue.async { loop.stop {} }
            }
            state.withLock {
                $0.phase = .created
                $0.openListeners = listeners.count
            }
            for listener in listeners {
                listener.start()
                listener.close()
            }
            throw error
        }
        loops.withLock { $0 = eventLoops }
        // A `setLimits` that ran while the loops were being made did not reach them.
        refreshLimits(of: eventLoops)
        state.withLock {
            $0.listeners = listeners
            $0.loops = eventLoops
            $0.boundAddresses = listeners.map(\.address)
            $0.openListeners = listeners.count
        }
        handlerPool.start()
        for listener in listeners {
            listener.start()
            logger.info("listening", metadata: ["address": "\(listener.address)"])
        }
    }

    // MARK: - Accepting

    private func acceptConnections(from listener: Listener) {
        // A bounded batch per readiness event keeps one busy listener from starving the others.
        for _ in 0..<64 {
            let accepted: (fd: Int32, peer: String?)
            do {
                guard case .done(let result) = try Socket.accept(listener.fd) else { return }
                accepted = result
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOBUFS || error.errno == ENOMEM {
                    logger.error("cannot accept: out of resources", metadata: ["error": "\(error)"])
                    listener.pause(for: .milliseconds(100))
                    return
                }
                if error.errno == ECONNABORTED { continue }
                logger.error("accept failed", metadata: ["error": "\(error)"])
                return
            }
            let limits = currentLimits
            let connection = state.withLock { state -> HTTPConnection? in
                guard state.phase == .running, state.connections.count < limits.maxConnections else { return nil }
                let loop = state.loops[assigned.add(1, ordering: .relaxed).oldValue % state.loops.count]
                connectionDescriptors.add(1, ordering: .relaxed)
                let connection = HTTPConnection(
                    fd: accepted.fd,
                    remoteAddress: accepted.peer,
                    server: self,
                    limits: limits,
                    loop: loop
                )
                state.connections[ObjectIdentifier(connection)] = connection
                return connection
            }
            if let connection {
                Socket.setNoDelay(accepted.fd)
                connection.start()
            } else {
                refuse(fd: accepted.fd)
            }
        }
    }

    /// Answers 503 to a connection over the limit (or arriving during shutdown) and closes it at once, without
    /// ever giving it a queue or a buffer.
    private func refuse(fd: Int32) {
        let toReport = refusals.withLock { state -> Int? in
            let now = ContinuousClock.now
            state.count += 1
            if let last = state.lastLogged, now - last < .seconds(10) { return nil }
            state.lastLogged = now
            defer { state.count = 0 }
            return state.count
        }
        if let toReport {
            logger.warning(
                "connections refused: connection limit reached or shutting down",
                metadata: ["count": "\(toReport)"]
            )
        }
        let (response, body) = handler.rejectionResponse(
            HTTPRejection(
                status: .serviceUnavailable,
                code: "UNAVAILABLE",
                message: "server busy or shutting down, retry later"
            )
        )
        var headers = response.headers
        headers.add(name: "Retry-After", value: "1")
        var checked = ResponseFieldCache()
        let bytes =
            ResponseHead.serialize(
                status: response.status,
                headers: headers,
                framing: .contentLength(body.count),
                keepAlive: false,
                version: .http1_1,
                serverHeader: serverHeader,
                checked: &checked
            ) + body
        // One non-blocking attempt: a fresh socket's send buffer always takes a response this small.
        _ = bytes.withUnsafeBytes { try? Socket.send(fd, $0) }
        Socket.shutdownWrite(fd)
        // Drain what the client already sent so that close does not turn into a reset that destroys the answer.
        _ = withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { try? Socket.read(fd, into: $0) }
        SystemCall.close(fd)
    }

    func connectionDidClose(_ connection: HTTPConnection) {
        state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
        checkShutdownComplete()
    }

    private func listenerDidClose() {
        state.withLock { $0.openListeners -= 1 }
        checkShutdownComplete()
    }

    /// Statistics of every open connection (for tests and metrics).
    func connectionStatistics() -> [HTTPConnection.Statistics] {
        state.withLock { Array($0.connections.values) }.map { $0.statistics() }
    }

    // MARK: - Shutdown

    /// Stops gracefully and returns when done: see `shutdown(gracePeriod:completion:)`.
    public func shutdown(gracePeriod: Duration? = nil) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shutdown(gracePeriod: gracePeriod) { continuation.resume() }
        }
    }

    /// Stops gracefully: closes the listeners, closes idle connections, lets requests in progress finish (their
    /// responses get `Connection: close`) for up to `gracePeriod` (default: the configured one), then closes the
    /// rest. `completion` runs once every listener, connection and event loop is closed; calling again just waits for that.
    public func shutdown(gracePeriod: Duration? = nil, completion: @escaping @Sendable () -> Void) {
        enum Step {
            case completeNow
            case wait
            case begin([Listener], [HTTPConnection])
        }
        let step = state.withLock { state -> Step in
            switch state.phase {
            case .created, .stopped:
                state.phase = .stopped
                return .completeNow
            case .shuttingDown:
                state.shutdownWaiters.append(completion)
                return .wait
            case .running:
                isShuttingDown.store(true, ordering: .relaxed)
                state.phase = .shuttingDown
                state.shutdownWaiters.append(completion)
                return .begin(state.listeners, Array(state.connections.values))
            }
        }
        switch step {
        case .completeNow:
            completion()
        case .wait:
            break
        case .begin(let listeners, let connections):
            logger.info("shutting down", metadata: ["connections": "\(connections.count)"])
            for listener in listeners { listener.close() }
            for connection in connections { connection.beginShutdown() }
            let grace = gracePeriod ?? configuration.shutdownGracePeriod
            acceptQueue.asyncAfter(deadline: .now() + grace.dispatchInterval) { [self] in
                let remaining = state.withLock { Array($0.connections.values) }
                if !remaining.isEmpty {
                    logger.warning("grace period over, closing connections", metadata: ["count": "\(remaining.count)"])
                }
                for connection in remaining { connection.forceClose() }
            }
            checkShutdownComplete()
        }
    }

    private func checkShutdownComplete() {
        let finished = state.withLock { state -> (waiters: [@Sendable () -> Void], loops: [EventLoop])? in
            guard state.phase == .shuttingDown, state.connections.isEmpty, state.openListeners == 0 else { return nil }
            state.phase = .stopped
            state.listeners = []
            defer {
                state.loops = []
                state.shutdownWaiters = []
            }
            return (state.shutdownWaiters, state.loops)
        }
        guard let finished else { return }
        // Shutdown is complete once the loops have closed their epoll descriptors too: a caller may count them.
        let loopsClosed = DispatchGroup()
        for loop in finished.loops {
            loopsClosed.enter()
            loop.queue.async { loop.stop { loopsClosed.leave() } }
        }
        loopsClosed.notify(queue: .global()) { [self] in
            // Handlers still running past the grace period finish on their threads, which then exit.
            handlerPool.stop()
            logger.info("shut down")
            for waiter in finished.waiters { waiter() }
        }
    }
}
