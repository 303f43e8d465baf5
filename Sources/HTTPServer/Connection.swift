import Dispatch
import Logging
import Synchronization

/// One client connection: reads and parses requests, hands them to the handler queue one at a time, writes the
/// responses in order, and enforces the timeouts and the output bound.
///
/// `@unchecked Sendable`: every mutable property is read and written only on `queue`, a serial queue that is also
/// the target of the connection's DispatchSources; other threads (the server, the handler running a streamed body)
/// reach the state through `queue.async` / `queue.sync` only.
final class Connection: @unchecked Sendable {
    enum TimerPurpose {
        case none
        case idle
        case headDeadline
        case bodyInactivity
        case send
        case linger
    }

    /// Snapshot for tests and metrics.
    struct Statistics: Sendable, CustomStringConvertible {
        var pendingOutput: Int
        var maxObservedPendingOutput: Int
        var bufferedInput: Int
        var inFlight: Bool
        var phase: RequestParser.Phase
        var readSuspended: Bool

        var description: String {
            "pending=\(pendingOutput) buffered=\(bufferedInput) inFlight=\(inFlight) phase=\(phase) "
                + "readSuspended=\(readSuspended)"
        }
    }

    /// How long to keep reading (and discarding) after the response that ends a connection, so that the client
    /// receives it instead of a reset caused by its own unread data (RFC 9112 §9.6).
    static let lingerTime: Duration = .seconds(2)
    /// Most input buffered ahead (pipelined requests) while a request is being handled.
    static let maxReadAhead = 64 * 1024

    let fd: Int32
    let queue: DispatchQueue
    let server: HTTPServer
    let remoteAddress: String?
    let logger: Logger

    var parser: RequestParser
    var limits: HTTPLimits
    let readSource: any DispatchSourceRead
    /// Created on the first write that would block: registering a second source on the descriptor at accept time
    /// races with libdispatch's epoll re-arming and can lose the first read event.
    var writeSource: (any DispatchSourceWrite)?
    /// A repeating tick that enforces every deadline (`timerPurpose` / `timerDeadline`) and reads once while the
    /// connection waits for input.
    ///
    /// Deadlines change several times per request; rescheduling a Dispatch timer each time wakes libdispatch's
    /// manager thread (an `eventfd` write) and was a measurable share of a request's cost, so deadlines are only
    /// recorded and this tick checks them, at a quarter of the shortest timeout (at most a second). The read is a
    /// safety net: libdispatch's epoll back end was seen to lose a read event now and then on a loaded machine
    /// (about one fresh connection in a few thousand went unanswered until the idle timeout); a read that finds
    /// nothing costs one `EAGAIN`, and a lost event now costs one tick instead of a hung request.
    let timer: any DispatchSourceTimer
    let tickInterval: DispatchTimeInterval
    var readSuspended = false
    /// False once the descriptor is closed; guards `forceClose`, which runs off the queue.
    let descriptorOpen = Mutex(true)
    var writeSuspended = true
    var cancelledSources = 0

    var output: [UInt8] = []
    var outputOffset = 0
    var maxObservedPendingOutput = 0
    var drainWaiter: DispatchSemaphore?

    var inFlight = false
    /// The streamed response whose writer may write now (0: none); numbered by `streamCount`.
    var activeStream = 0
    var streamCount = 0
    var closed = false
    /// Close once the output is flushed (after an error, `Connection: close`, or during shutdown).
    var closing = false
    var lingering = false
    var peerClosedInput = false
    var shuttingDown = false
    var abortOnClose = false

    var headStartedAt: DispatchTime?
    var lastReadAt = DispatchTime.now()
    var lastWriteProgressAt = DispatchTime.now()
    var idleSince = DispatchTime.now()
    var timerPurpose = TimerPurpose.none
    var timerDeadline = DispatchTime.distantFuture

    init(fd: Int32, remoteAddress: String?, server: HTTPServer, limits: HTTPLimits) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.server = server
        self.limits = limits
        var logger = server.logger
        logger[metadataKey: "http.peer"] = "\(remoteAddress ?? "unknown")"
        self.logger = logger
        queue = DispatchQueue(label: "sqlited.http.connection")
        parser = RequestParser(limits: limits, remoteAddress: remoteAddress)
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        timer = DispatchSource.makeTimerSource(queue: queue)
        let shortest =
            [
                limits.headTimeout, limits.bodyInactivityTimeout, limits.idleTimeout, limits.sendTimeout,
                Self.lingerTime,
            ].min() ?? .seconds(1)
        tickInterval = max(.milliseconds(10), min(.seconds(1), shortest / 4)).dispatchInterval
    }

    var pendingOutput: Int { output.count - outputOffset }

    /// Activates the sources; called once, right after accept.
    func start() {
        readSource.setEventHandler { [self] in handleReadable() }
        timer.setEventHandler { [self] in handleTick() }
        readSource.setCancelHandler { [self] in sourceCancelled() }
        queue.async { [self] in
            timer.schedule(deadline: .now() + tickInterval, repeating: tickInterval, leeway: tickInterval)
            timer.activate()
            readSource.activate()
            updateTimer()
            // The request may have arrived with the handshake; do not depend on the first event for it.
            pollReadable()
        }
    }

    /// Stops after the current request (if any), with `Connection: close` on its response.
    func beginShutdown() {
        queue.async { [self] in
            guard !closed else { return }
            shuttingDown = true
            // An idle connection has nothing in flight to protect: close it now rather than linger.
            if !inFlight && parser.phase == .idle && pendingOutput == 0 {
                close()
            }
        }
    }

    /// Closes now, whatever is in progress (end of the shutdown grace period).
    ///
    /// The queue may be busy running a handler that outlived the grace period, so the connection is ended for the
    /// client at once with `shutdown(2)` (under `descriptorOpen`, so never on a descriptor number already closed
    /// and reused) and the server stops counting it; the queue closes the descriptor when the handler returns.
    func forceClose() {
        descriptorOpen.withLock { open in
            if open { Socket.shutdownBoth(fd) }
        }
        server.connectionDidClose(self)
        queue.async { [self] in close() }
    }

    func statistics() -> Statistics {
        queue.sync {
            Statistics(
                pendingOutput: pendingOutput,
                maxObservedPendingOutput: maxObservedPendingOutput,
                bufferedInput: parser.bufferedByteCount,
                inFlight: inFlight,
                phase: parser.phase,
                readSuspended: readSuspended
            )
        }
    }

    // MARK: - Reading

    /// Reads once outside of a read event, if reading is wanted now.
    func pollReadable() {
        if !readSuspended && !closed { handleReadable() }
    }

    private func handleReadable() {
        guard !closed else { return }
        let result: IOResult<Int>
        do {
            if parser.phase == .idle {
                // A limit change (SIGHUP reload) applies from the next request.
                limits = server.currentLimits
                parser.limits = limits
            }
            result = try withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { buffer in
                let result = try Socket.read(fd, into: buffer)
                if case .done(let count) = result, count > 0, !lingering {
                    parser.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                }
                return result
            }
        } catch {
            logger.debug("read failed, closing", metadata: ["error": "\(error)"])
            close()
            return
        }
        switch result {
        case .wouldBlock:
            return
        case .done(0):
            peerClosedInput = true
            if lingering {
                close()
                return
            }
            updateReadInterest()
            processInput()
        case .done:
            guard !lingering else { return }
            lastReadAt = .now()
            processInput()
        }
    }

    /// Parses and dispatches as many requests as the state allows: one in flight at a time, none while the output
    /// is over its bound (a client that does not read its responses gets no more of them produced).
    func processInput() {
        guard !closed && !lingering else { return }
        parsing: while !inFlight && !closing {
            if pendingOutput > limits.maxPendingOutput { break }
            switch parser.next() {
            case .needMoreData:
                if shuttingDown && parser.phase == .idle { closeWhenFlushed() }
                break parsing
            case .send100Continue:
                enqueue(ResponseHead.continueResponse)
            case .requestComplete(let request):
                dispatch(request)
            case .reject(let rejection):
                logger.debug(
                    "rejected request",
                    metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.message)"]
                )
                respondWithError(status: rejection.status, code: rejection.code, message: rejection.message)
            }
        }
        if peerClosedInput && !inFlight && !closed {
            // The client sent everything it will send; an unfinished request can never complete.
            closeWhenFlushed()
        }
        updateReadInterest()
        updateTimer()
    }

    func updateReadInterest() {
        guard !closed else { return }
        let wanted: Bool
        if peerClosedInput {
            wanted = false
        } else if lingering {
            wanted = true
        } else {
            wanted =
                !closing && pendingOutput <= limits.maxPendingOutput
                && (!inFlight || parser.bufferedByteCount < Self.maxReadAhead)
        }
        if wanted && readSuspended {
            readSource.resume()
            readSuspended = false
            // Input that arrived while the source was suspended must not depend on a new event.
            queue.async { [self] in pollReadable() }
        } else if !wanted && !readSuspended {
            readSource.suspend()
            readSuspended = true
        }
    }

    // MARK: - Timers

    func updateTimer() {
        guard !closed && !lingering else { return }
        let now = DispatchTime.now()
        var purpose = TimerPurpose.none
        var deadline = DispatchTime.distantFuture
        if pendingOutput > 0 {
            purpose = .send
            deadline = lastWriteProgressAt + limits.sendTimeout.dispatchInterval
        } else if !inFlight && !closing {
            switch parser.phase {
            case .idle:
                headStartedAt = nil
                purpose = .idle
                deadline = idleSince + limits.idleTimeout.dispatchInterval
            case .head:
                // An absolute deadline from the head's first byte: trickling bytes does not extend it.
                let started = headStartedAt ?? now
                headStartedAt = started
                purpose = .headDeadline
                deadline = started + limits.headTimeout.dispatchInterval
            case .body:
                purpose = .bodyInactivity
                deadline = lastReadAt + limits.bodyInactivityTimeout.dispatchInterval
            case .failed:
                break
            }
        }
        setTimer(purpose, deadline)
    }

    func setTimer(_ purpose: TimerPurpose, _ deadline: DispatchTime) {
        timerPurpose = purpose
        timerDeadline = deadline
    }

    private func handleTick() {
        guard !closed else { return }
        if !inFlight { pollReadable() }
        guard !closed, timerPurpose != .none, DispatchTime.now() >= timerDeadline else { return }
        switch timerPurpose {
        case .none:
            break
        case .idle:
            logger.trace("idle timeout, closing")
            close()
        case .headDeadline, .bodyInactivity:
            logger.debug("request timeout", metadata: ["phase": "\(timerPurpose)"])
            respondWithError(status: .requestTimeout, code: "REQUEST_TIMEOUT", message: "request not received in time")
            updateTimer()
        case .send:
            logger.debug("client not reading its response, closing")
            close()
        case .linger:
            close()
        }
    }

    // MARK: - Closing

    /// Marks the connection to close once everything queued is sent.
    func closeWhenFlushed() {
        guard !closed else { return }
        closing = true
        if pendingOutput == 0 { beginLingeringClose() }
    }

    /// Half-closes and discards input for a short while before closing (see `lingerTime`).
    private func beginLingeringClose() {
        guard !closed && !lingering else { return }
        if peerClosedInput || abortOnClose {
            close()
            return
        }
        lingering = true
        Socket.shutdownWrite(fd)
        parser = RequestParser(limits: limits)
        updateReadInterest()
        timerPurpose = .linger
        timerDeadline = .now() + Self.lingerTime.dispatchInterval
    }

    /// Closes at once. The descriptor itself is closed once both I/O sources are cancelled, as Dispatch requires.
    func close() {
        guard !closed else { return }
        closed = true
        drainWaiter?.signal()
        drainWaiter = nil
        output = []
        outputOffset = 0
        if readSuspended {
            readSource.resume()
            readSuspended = false
        }
        if let writeSource {
            if writeSuspended {
                writeSource.resume()
                writeSuspended = false
            }
            writeSource.cancel()
        }
        readSource.cancel()
        timer.cancel()
    }

    func sourceCancelled() {
        cancelledSources += 1
        guard cancelledSources == (writeSource == nil ? 1 : 2) else { return }
        if abortOnClose { Socket.setAbortiveClose(fd) }
        descriptorOpen.withLock { open in
            open = false
            SystemCall.close(fd)
        }
        server.connectionDidClose(self)
    }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, seconds >= 0 else { return seconds < 0 ? .nanoseconds(0) : .never }
        return .nanoseconds(Int(clamping: nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
