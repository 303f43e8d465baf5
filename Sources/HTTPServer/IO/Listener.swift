import Dispatch
import Glibc
import Synchronization

/// A listening socket whose accept readiness is reported by a DispatchSource.
///
/// `@unchecked Sendable`: the descriptor and the source are immutable references; the source's suspend state lives
/// in `paused`, a `Mutex`, so that `pause` and `close` from different threads keep Dispatch's suspend count right.
final class Listener: @unchecked Sendable {
    let fd: Int32
    let address: BoundAddress
    private let unlinkPath: String?
    private let source: any DispatchSourceRead
    /// Accepts once a second even without a readiness event: the same safety net as the read in
    /// `HTTPConnection.timer`'s tick, so that a lost event never leaves a connection waiting in the backlog. `accept`
    /// on an empty backlog is one `EAGAIN`.
    private let safetyPoll: any DispatchSourceTimer
    private let queue: DispatchQueue
    private let paused = Mutex<(paused: Bool, closed: Bool)>((false, false))

    init(
        fd: Int32,
        address: BoundAddress,
        unlinkPath: String?,
        queue: DispatchQueue,
        onAcceptable: @escaping @Sendable (Listener) -> Void,
        onClosed: @escaping @Sendable () -> Void
    ) {
        self.fd = fd
        self.address = address
        self.unlinkPath = unlinkPath
        self.queue = queue
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        safetyPoll = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [unowned self] in onAcceptable(self) }
        safetyPoll.setEventHandler { [unowned self] in
            let active = paused.withLock { !$0.paused && !$0.closed }
            if active { onAcceptable(self) }
        }
        source.setCancelHandler { [fd, unlinkPath] in
            SystemCall.close(fd)
            if let unlinkPath { _ = unlink(unlinkPath) }
            onClosed()
        }
    }

    func start() {
        source.activate()
        safetyPoll.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(250))
        safetyPoll.activate()
    }

    /// Stops accepting for a moment (out of descriptors: accepting again at once would spin).
    func pause(for duration: Duration) {
        let didPause = paused.withLock { state -> Bool in
            guard !state.paused && !state.closed else { return false }
            state.paused = true
            return true
        }
        guard didPause else { return }
        source.suspend()
        queue.asyncAfter(deadline: .now() + duration.dispatchInterval) { [self] in
            let resume = paused.withLock { state -> Bool in
                guard state.paused && !state.closed else { return false }
                state.paused = false
                return true
            }
            if resume { source.resume() }
        }
    }

    /// Closes the socket (asynchronously, once the source is cancelled) and removes a Unix socket file it created.
    func close() {
        let wasPaused = paused.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            state.closed = true
            defer { state.paused = false }
            return state.paused
        }
        guard let wasPaused else { return }
        if wasPaused { source.resume() }
        safetyPoll.cancel()
        source.cancel()
    }
}
