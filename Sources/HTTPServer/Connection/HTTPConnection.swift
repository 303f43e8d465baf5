import CEventPoll
import Dispatch
import Logging
import Synchronization

/// One client connection: reads and parses requests, hands them to the handler one at a time, writes the responses
/// in order, and enforces the timeouts and the output bound.
///
/// `@unchecked Sendable`: every mutable property is read and written only on `queue`, the serial queue of the
/// connection's `EventLoop`; other threads (the server, a handler thread) reach the state through `queue.async` /
/// `queue.sync` only.
final class HTTPConnection: @unchecked Sendable {
    enum TimerPurpose {
        case none
        case idle
        case headDeadline
        case bodyInactivity
        case send
        /// An HTTP/2 streamed body whose client stopped reading (``HTTPLimits/streamStallTimeout``).
        case streamStall
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
    let loop: EventLoop
    let queue: DispatchQueue
    let server: HTTPServer
    let remoteAddress: String?
    let logger: Logger

    var parser: RequestParser
    var limits: HTTPLimits
    /// The HTTP/2 session once the connection has switched to HTTP/2 (`HTTPConnection+HTTP2`).
    var http2: HTTP2Session?
    /// The first bytes received, held until they show whether the connection opens with the HTTP/2 preface; nil
    /// once that is decided (or when HTTP/2 is off).
    var prefaceProbe: [UInt8]?
    /// True while the streams of one read are dispatched: responses given on the loop meanwhile leave in one send.
    var collectingHTTP2Output = false
    /// The handler's response fields found valid lately (HTTP/1.1 responses).
    var checkedFields = ResponseFieldCache()
    /// The events of the last read, taken from the session (their array kept for the next read).
    var http2Events: [HTTP2Session.Event] = []
    /// The authority and target the connection's last HTTP/2 requests had, already checked.
    var http2RequestCache = HTTP2RequestCache()
    /// HTTP/2 streams of this connection being answered on handler threads, and those waiting for their turn.
    var http2OnHandlerThreads = 0
    var http2Waiting: [(request: HTTPRequest, streamID: Int32)] = []
    /// The connection's key in its loop's epoll set (0 until registered).
    var token: UInt64 = 0
    /// The readiness events the epoll set watches for, and the ones wanted now (`updateInterest`).
    var watchedEvents: UInt32 = 0
    var wantsRead = true
    var wantsWrite = false
    /// False once the descriptor is closed; guards `forceClose`, which runs off the queue.
    let descriptorOpen = Mutex(true)

    var output: [UInt8] = []
    var outputOffset = 0
    var maxObservedPendingOutput = 0
    var drainWaiter: DispatchSemaphore?

    /// The connection's life: protocol, request in flight, draining, closing (``ConnectionStateMachine``).
    var lifecycle = ConnectionStateMachine()
    var inFlight: Bool { lifecycle.isRequestInFlight }
    var closed: Bool { lifecycle.isClosed }
    var closing: Bool { lifecycle.isClosing }
    var lingering: Bool { lifecycle.isLingering }
    var peerClosedInput: Bool { lifecycle.peerClosedInput }
    var shuttingDown: Bool { lifecycle.draining }
    /// True while `processInput` runs: a response finished inline lets its loop go on rather than recursing.
    var processingInput = false
    /// The streamed response whose writer may write now (0: none); numbered by `streamCount`.
    var activeStream = 0
    var streamCount = 0
    /// The head of the active streamed response until its first piece is sent.
    var pendingStreamHead: [UInt8]?
    /// The streamed response cut because its client stopped reading (0: none), so that its writer says so.
    var stalledStream = 0

    var headStartedAt: DispatchTime?
    var lastReadAt = DispatchTime.now()
    var lastWriteProgressAt = DispatchTime.now()
    var idleSince = DispatchTime.now()
    var timerPurpose = TimerPurpose.none
    var timerDeadline = DispatchTime.distantFuture

    init(fd: Int32, remoteAddress: String?, server: HTTPServer, limits: HTTPLimits, loop: EventLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.server = server
        self.limits = limits
        self.loop = loop
        self.queue = loop.queue
        var logger = server.logger
        logger[metadataKey: "http.peer"] = "\(remoteAddress ?? "unknown")"
        self.logger = logger
        parser = RequestParser(limits: limits, remoteAddress: remoteAddress)
        prefaceProbe = limits.http2.enabled ? [] : nil
    }

    var pendingOutput: Int { output.count - outputOffset }

    /// Joins the loop's epoll set; called once, right after accept.
    func start() {
        queue.async { [self] in
            do {
                watchedEvents = cep_in
                token = try loop.register(self, events: watchedEvents)
            } catch {
                logger.error("cannot watch the connection, closing", metadata: ["error": "\(error)"])
                descriptorOpen.withLock { open in
                    open = false
                    SystemCall.close(fd)
                    server.connectionDescriptors.subtract(1, ordering: .relaxed)
                }
                _ = lifecycle.closeNow()
                server.connectionDidClose(self)
                return
            }
            updateTimer()
            // The request may have arrived with the handshake: read it now rather than after an epoll round.
            handleReadable()
        }
    }

    /// Stops after the current request (if any), with `Connection: close` on its response.
    func beginShutdown() {
        queue.async { [self] in
            guard !closed else { return }
            if let http2 {
                beginHTTP2Shutdown(http2)
                return
            }
            lifecycle.beginDraining()
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
                readSuspended: !wantsRead
            )
        }
    }

    // MARK: - Reading

    /// Serves the readiness `events` the loop's epoll set reported for this socket.
    func handleEvents(_ events: UInt32) {
        if events & cep_out != 0 { handleWritable() }
        if events & cep_in != 0 && !closed { handleReadable() }
        if events & (cep_err | cep_hup) != 0 && events & cep_in == 0 && !closed {
            // Reset, or shut down in both directions, with nothing left to read: no response can reach the
            // client any more. (epoll reports these whatever the set watches for, so waiting would spin.)
            logger.debug("connection reset or hung up, closing")
            close()
        }
    }

    private func handleReadable() {
        guard !closed else { return }
        let result: IOResult<Int>
        do {
            if parser.phase == .idle && http2 == nil {
                // A limit change (SIGHUP reload) applies from the next request.
                limits = loop.limits
                parser.limits = limits
            }
            result = try withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { buffer in
                let result = try Socket.read(fd, into: buffer)
                if case .done(let count) = result, count > 0, !lingering {
                    received(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
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
            if case .close = lifecycle.inputEnded() {
                close()
                return
            }
            updateReadInterest()
            processInput()
        case .done:
            guard !lingering else { return }
            lastReadAt = loop.now
            processInput()
        }
    }

    /// Routes bytes read from the socket: to the HTTP/2 session, to the HTTP/1.1 parser, or (the first bytes of a
    /// connection) held until they show whether the connection opens with the HTTP/2 preface.
    func received(_ bytes: UnsafeRawBufferPointer) {
        if let http2 {
            receiveHTTP2(bytes, session: http2)
            return
        }
        guard let probe = prefaceProbe else {
            parser.feed(bytes)
            return
        }
        if probe.isEmpty {
            // The common case: the first read decides, with no copy.
            switch HTTP2Preface.match(bytes) {
            case .http1:
                prefaceProbe = nil
                parser.feed(bytes)
            case .http2:
                prefaceProbe = nil
                lifecycle.prefaceReceived()
                startHTTP2(session: HTTP2Session(limits: limits), initialBytes: bytes)
            case .needMore:
                prefaceProbe = Array(bytes)
            }
            return
        }
        let joined = probe + bytes
        switch joined.withUnsafeBytes(HTTP2Preface.match) {
        case .http1:
            prefaceProbe = nil
            parser.feed(joined)
        case .http2:
            prefaceProbe = nil
            lifecycle.prefaceReceived()
            joined.withUnsafeBytes { startHTTP2(session: HTTP2Session(limits: limits), initialBytes: $0) }
        case .needMore:
            prefaceProbe = joined
        }
    }

    /// Parses and dispatches as many requests as the state allows: one in flight at a time, none while the output
    /// is over its bound (a client that does not read its responses gets no more of them produced).
    func processInput() {
        if let http2 {
            processHTTP2(http2)
            return
        }
        guard !closed && !lingering && !processingInput else { return }
        processingInput = true
        defer { processingInput = false }
        parsing: while !inFlight && !closing {
            if pendingOutput > limits.maxPendingOutput { break }
            switch parser.next() {
            case .needMoreData:
                if shuttingDown && parser.phase == .idle { closeWhenFlushed() }
                break parsing
            case .send100Continue:
                enqueue(ResponseHead.continueResponse)
            case .requestComplete(let request):
                dispatchHTTP1(request)
            case .reject(let rejection):
                logger.debug(
                    "rejected request",
                    metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.message)"]
                )
                respondWithError(rejection.asHTTPRejection)
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
        } else if http2 != nil {
            wanted = !closing && pendingOutput <= limits.maxPendingOutput
        } else {
            wanted =
                !closing && pendingOutput <= limits.maxPendingOutput
                && (!inFlight || parser.bufferedByteCount < Self.maxReadAhead)
        }
        if wanted != wantsRead {
            wantsRead = wanted
            updateInterest()
        }
    }

    /// Tells the epoll set the events wanted now, when they changed.
    func updateInterest() {
        guard !closed else { return }
        let events = (wantsRead ? cep_in : 0) | (wantsWrite ? cep_out : 0)
        guard events != watchedEvents else { return }
        do {
            try loop.watch(fd, token: token, events: events)
            watchedEvents = events
        } catch {
            logger.error("cannot watch the connection, closing", metadata: ["error": "\(error)"])
            close()
        }
    }

    // MARK: - Timers

    func updateTimer() {
        guard !closed && !lingering else { return }
        if let http2 {
            updateHTTP2Timer(http2)
            return
        }
        let now = loop.now
        var purpose = TimerPurpose.none
        var deadline = DispatchTime.distantFuture
        if pendingOutput > 0 {
            purpose = .send
            // While a body streams its producer holds resources (a database reader): the stall limit applies.
            let timeout = activeStream != 0 ? limits.streamStallTimeout : limits.sendTimeout
            deadline = lastWriteProgressAt + timeout.dispatchInterval
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

    func handleTick() {
        guard !closed, timerPurpose != .none, DispatchTime.now() >= timerDeadline else { return }
        if let http2, !lingering {
            handleHTTP2Tick(http2)
            return
        }
        switch timerPurpose {
        case .none:
            break
        case .idle:
            logger.trace("idle timeout, closing")
            close()
        case .headDeadline, .bodyInactivity:
            logger.debug("request timeout", metadata: ["phase": "\(timerPurpose)"])
            respondWithError(
                HTTPRejection(status: .requestTimeout, code: "REQUEST_TIMEOUT", message: "request not received in time")
            )
            updateTimer()
        case .streamStall:
            break
        case .send:
            if activeStream != 0 {
                logger.info("client stopped reading a streamed response, closing")
                stalledStream = activeStream
            } else {
                logger.debug("client not reading its response, closing")
            }
            close()
        case .linger:
            close()
        }
    }

    // MARK: - Closing

    /// Marks the connection to close once everything queued is sent.
    func closeWhenFlushed() {
        perform(lifecycle.closeWhenFlushed(pendingOutput: pendingOutput))
    }

    /// Does what a transition of ``lifecycle`` asks.
    func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none: break
        case .linger: beginLingeringClose()
        case .close: close()
        }
    }

    /// Half-closes and discards input for a short while before closing (see `lingerTime`).
    private func beginLingeringClose() {
        Socket.shutdownWrite(fd)
        parser = RequestParser(limits: limits)
        updateReadInterest()
        timerPurpose = .linger
        timerDeadline = .now() + Self.lingerTime.dispatchInterval
    }

    /// Closes at once: leaves the epoll set, closes the descriptor and tells the server.
    func close() {
        guard case .close(let abortive) = lifecycle.closeNow() else { return }
        drainWaiter?.signal()
        drainWaiter = nil
        http2?.endAllStreamedBodies()
        output = []
        outputOffset = 0
        loop.deregister(fd, token: token)
        if abortive { Socket.setAbortiveClose(fd) }
        descriptorOpen.withLock { open in
            open = false
            SystemCall.close(fd)
            server.connectionDescriptors.subtract(1, ordering: .relaxed)
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
