import CEventPoll
import Dispatch
import Glibc
import Synchronization

/// A serial Dispatch queue that runs the I/O of a set of connections, woken by one DispatchSource.
///
/// The connections' sockets sit in an epoll set of the loop's own (level-triggered); the epoll descriptor itself
/// is what the loop's DispatchSource watches. When any socket of the set is ready, Dispatch runs `drain()` on the
/// queue, which takes every ready socket from the set with a non-blocking `epoll_wait` and serves them all in that
/// one turn. A DispatchSource per socket costs libdispatch two thread hand-offs per readiness event on Linux (its
/// manager thread waits in epoll, hands the event to a worker, and re-arms the source when the handler returns):
/// measured, that was most of a small request's cost. Here the cost is per turn, however many requests it serves.
///
/// One repeating timer per loop enforces every connection's deadlines (`HTTPConnection.handleTick`).
///
/// `@unchecked Sendable`: `connections`, `nextToken`, `stopped`, `limits` and `onClosed` are read and written only
/// on `queue`
/// (the sources' handlers run there); the rest is immutable.
final class EventLoop: @unchecked Sendable {
    let queue: DispatchQueue
    private let epollFD: Int32
    private let source: any DispatchSourceRead
    private let ticker: any DispatchSourceTimer
    private var connections: [UInt64: HTTPConnection] = [:]
    private var nextToken: UInt64 = 1
    private var stopped = false
    /// The limits a request starting now gets: a copy of the server's, pushed by `setLimits` (reading the
    /// server's shared copy under its lock for every request contended between loops).
    private(set) var limits: HTTPLimits
    /// Called once the epoll descriptor is closed (set by `stop`).
    private var onClosed: (@Sendable () -> Void)?
    /// When the readiness event being served was taken, while `drain` serves it; nil otherwise.
    @exclusivity(unchecked) private var eventTime: DispatchTime?
    /// Set once the epoll descriptor is closed (for tests: each loop's own, where counting the process's
    /// descriptors races with other servers starting and stopping).
    let descriptorClosed = Atomic<Bool>(false)
    /// Ready events taken per `epoll_wait`.
    private static let batchSize: Int32 = 128

    /// Creates a loop; `tickInterval` is how often deadlines are checked.
    init(index: Int, limits: HTTPLimits, tickInterval: DispatchTimeInterval) throws(HTTPServerError) {
        self.limits = limits
        queue = DispatchQueue(label: "sqlited.http.loop.\(index)")
        epollFD = try SystemCall.check("epoll_create1") { cep_create() }
        source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        ticker = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [weak self] in self?.drain() }
        // A strong reference: the loop lives until it is stopped (the cancel handler is released after it runs),
        // so closing the descriptor and reporting it never finds the loop gone.
        source.setCancelHandler { [self] in
            SystemCall.close(epollFD)
            descriptorClosed.store(true, ordering: .releasing)
            onClosed?()
            onClosed = nil
        }
        ticker.setEventHandler { [weak self] in self?.tick() }
        ticker.schedule(deadline: .now() + tickInterval, repeating: tickInterval, leeway: tickInterval)
        source.activate()
        ticker.activate()
    }

    /// Takes new limits (for requests that start from now on) and how often to check deadlines. On `queue`.
    func setLimits(_ limits: HTTPLimits, tickInterval interval: DispatchTimeInterval) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.limits = limits
        ticker.schedule(deadline: .now() + interval, repeating: interval, leeway: interval)
    }

    /// Stops the loop's sources and closes the epoll descriptor, then calls `closed`; connections must be closed
    /// already. On `queue`.
    func stop(then closed: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else {
            closed()
            return
        }
        stopped = true
        onClosed = closed
        ticker.cancel()
        source.cancel()
    }

    // MARK: - Registration (on `queue`)

    /// Adds `connection`'s socket to the set, watched for `events`; returns its token.
    func register(_ connection: HTTPConnection, events: UInt32) throws(HTTPServerError) -> UInt64 {
        dispatchPrecondition(condition: .onQueue(queue))
        let token = nextToken
        nextToken += 1
        try SystemCall.check("epoll_ctl") { cep_add(epollFD, connection.fd, events, token) }
        connections[token] = connection
        return token
    }

    /// Changes the events a registered socket is watched for.
    func watch(_ fd: Int32, token: UInt64, events: UInt32) throws(HTTPServerError) {
        try SystemCall.check("epoll_ctl") { cep_modify(epollFD, fd, events, token) }
    }

    /// Removes a socket from the set; call before closing it.
    func deregister(_ fd: Int32, token: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        if connections.removeValue(forKey: token) != nil {
            _ = cep_remove(epollFD, fd)
        }
    }

    // MARK: - Serving

    /// Serves every socket ready now, in one `epoll_wait`, and returns.
    ///
    /// What became ready meanwhile keeps the epoll descriptor readable, so Dispatch runs the loop again, after the
    /// other work queued on it (responses from handler threads, new connections, timers). Looking again here
    /// before returning served a few percent more requests per second, but measurably lengthened the tail
    /// latency (p99 at 64 connections: about 5.5 ms instead of 3.3 ms): longer turns hold the CPU from the
    /// clients' side and from the queue's other work.
    private func drain() {
        withUnsafeTemporaryAllocation(of: cep_event.self, capacity: Int(Self.batchSize)) { events in
            let count = cep_wait(epollFD, events.baseAddress, Self.batchSize, 0)
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let event = events[index]
                // A connection closed earlier in this batch has left the table: its event is stale.
                if let connection = connections[event.token] {
                    eventTime = .now()
                    connection.handleEvents(event.events)
                }
            }
            eventTime = nil
        }
    }

    /// The time for a connection's deadlines and progress stamps: while an event is served, when it was taken
    /// (one clock read per event instead of one per stamp, five per request); otherwise now.
    ///
    /// An event's stamps are thus early by at most the time the event took to serve — every request of it that the
    /// loop answered itself, pipelined ones included, each held to a few milliseconds of SQL — which makes a
    /// deadline counted from them that much earlier, never later: negligible against timeouts of seconds.
    var now: DispatchTime {
        eventTime ?? .now()
    }

    private func tick() {
        // Also a safety net for the one DispatchSource: a lost wake-up costs at most one tick.
        drain()
        for connection in connections.values {
            connection.handleTick()
        }
    }
}
