/// The life of one connection, apart from its socket, buffers and timers: which protocol it serves, whether an
/// HTTP/1.1 request is in flight, and how the connection ends. The connection (`HTTPConnection`) asks it before it
/// acts, and does what the returned ``Action`` says; a transition the connection's code can never make traps, as
/// NIO's `HTTPServerPipelineHandler` keeps its `ConnectionState` and `LifecycleState`.
///
/// ```
///  state            event                          next state     action
///  ───────────────  ─────────────────────────────  ─────────────  ───────────────────────────────────────────────
///  http1Idle        requestDispatched              http1InFlight  (keep-alive decided: off while draining)
///  http1InFlight    responseFinished               http1Idle      —
///  http1InFlight    responseFailed(abortive:)      closing        as closeWhenFlushed
///  closed           responseFinished/Failed        closed         none (sending it failed and closed)
///  http1InFlight    upgradedToHTTP2 (101)          http2          —
///  http1Idle        prefaceReceived                http2          —
///  http1Idle/http2  closeWhenFlushed (output left) closing        none
///  http1Idle/http2/ closeWhenFlushed (flushed)     lingering      linger (half-close, discard input)
///   closing                                        (closing)      close (the client closed its side, or abort)
///  lingering        closeWhenFlushed               lingering      none
///  any              inputEnded                     same           close when lingering, else none
///  any              beginDraining (shutdown)       same           — (no keep-alive, no upgrade from now on)
///  any but closed   closeNow                       closed         close(abortive:)
///  closed           closeNow / closeWhenFlushed    closed         none
/// ```
///
/// Illegal (a trap): a request dispatched while one is in flight (pipelined requests are answered in order, one at
/// a time) or once the connection closes, a response finished, failed or upgraded with none in flight, the preface
/// taken after the first request, and `closeWhenFlushed` while a request is in flight (the connection closes only
/// between responses).
struct ConnectionStateMachine: Sendable {
    enum State: Equatable, Sendable {
        /// HTTP/1.1 (or the first bytes, which may yet be the HTTP/2 preface), no request in flight: parsing.
        case http1Idle
        /// An HTTP/1.1 request is with the handler or its response is being written; later input is read ahead
        /// (up to `HTTPConnection.maxReadAhead`) but not parsed.
        case http1InFlight
        /// HTTP/2: the session multiplexes the streams (prior knowledge or `Upgrade: h2c`).
        case http2
        /// Closes once the output is flushed: no more requests are taken (after an error, `Connection: close`, a
        /// failed stream, or at the end of a graceful shutdown).
        case closing
        /// The write side is shut and input is discarded until the client closes or the linger time ends
        /// (RFC 9112 §9.6).
        case lingering
        /// The descriptor is closed.
        case closed
    }

    /// What the connection does after a transition.
    enum Action: Equatable, Sendable {
        case none
        /// Shut the write side, discard input, and close after `HTTPConnection.lingerTime`.
        case linger
        /// Close the descriptor now (with a reset when `abortive`).
        case close(abortive: Bool)
    }

    private(set) var state = State.http1Idle
    /// A graceful shutdown began: responses carry `Connection: close`, no upgrade starts, HTTP/2 sent GOAWAY.
    private(set) var draining = false
    /// The client closed its side (a read returned 0): an unfinished request can never complete.
    private(set) var peerClosedInput = false
    /// The connection ends with a reset rather than a clean close: a close-delimited streamed body that failed,
    /// which a clean close would make look complete.
    private(set) var abortive = false

    // MARK: - Reading the state

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }
    /// True from `closeWhenFlushed` on (lingering and closed included): no more requests are taken.
    var isClosing: Bool {
        switch state {
        case .closing, .lingering, .closed: true
        case .http1Idle, .http1InFlight, .http2: false
        }
    }
    var isLingering: Bool {
        if case .lingering = state { true } else { false }
    }
    var isRequestInFlight: Bool {
        if case .http1InFlight = state { true } else { false }
    }

    // MARK: - HTTP/1.1 requests

    /// A parsed HTTP/1.1 request goes to the handler. Returns whether its response may keep the connection open.
    mutating func requestDispatched(keepAlive: Bool) -> Bool {
        guard state == .http1Idle else { illegal("requestDispatched") }
        state = .http1InFlight
        return keepAlive && !draining
    }

    /// The in-flight request's response is queued whole: the next pipelined request may be parsed.
    /// (A response whose sending failed closed the connection already: it stays closed.)
    mutating func responseFinished() {
        switch state {
        case .http1InFlight: state = .http1Idle
        case .closed: break
        case .http1Idle, .http2, .closing, .lingering: illegal("responseFinished")
        }
    }

    /// The in-flight request's streamed response failed after its head: the connection ends once the output is
    /// flushed, with a reset when `abortive`.
    mutating func responseFailed(abortive: Bool, pendingOutput: Int) -> Action {
        switch state {
        case .http1InFlight: break
        case .closed: return .none
        case .http1Idle, .http2, .closing, .lingering: illegal("responseFailed")
        }
        if abortive { self.abortive = true }
        state = .http1Idle
        return closeWhenFlushed(pendingOutput: pendingOutput)
    }

    // MARK: - HTTP/2

    /// The in-flight request asked for `Upgrade: h2c` and got `101 Switching Protocols`: it becomes stream 1.
    mutating func upgradedToHTTP2() {
        guard state == .http1InFlight else { illegal("upgradedToHTTP2") }
        state = .http2
    }

    /// The connection opened with the HTTP/2 client preface (prior knowledge).
    mutating func prefaceReceived() {
        guard state == .http1Idle else { illegal("prefaceReceived") }
        state = .http2
    }

    // MARK: - Ending

    /// A graceful shutdown began.
    mutating func beginDraining() {
        draining = true
    }

    /// The client closed its side of the connection.
    mutating func inputEnded() -> Action {
        peerClosedInput = true
        return state == .lingering ? .close(abortive: abortive) : .none
    }

    /// No more requests: close once the output is flushed (`pendingOutput` bytes are still unsent). When nothing is
    /// left, lingers — or closes at once when the client closed its side already or the close is abortive.
    mutating func closeWhenFlushed(pendingOutput: Int) -> Action {
        switch state {
        case .closed, .lingering:
            return .none
        case .http1InFlight:
            illegal("closeWhenFlushed")
        case .http1Idle, .http2, .closing:
            state = .closing
            guard pendingOutput == 0 else { return .none }
            if peerClosedInput || abortive { return .close(abortive: abortive) }
            state = .lingering
            return .linger
        }
    }

    /// Closes at once, whatever the state (an error, a timeout, the end of lingering, a forced shutdown).
    mutating func closeNow() -> Action {
        guard state != .closed else { return .none }
        state = .closed
        return .close(abortive: abortive)
    }

    private func illegal(_ event: String) -> Never {
        preconditionFailure("connection state machine: \(event) in state \(state)")
    }
}
