import CEventPoll
import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads that run handlers and streamed bodies.
///
/// Handlers block (SQLite calls, a streamed body waiting for a slow client). On Dispatch's shared concurrent pool,
/// whose width follows the CPU count, a few blocked handlers would hold back every other request until Dispatch
/// noticed and slowly added threads; dedicated threads make handler concurrency explicit and bounded. Connection
/// I/O stays on the connections' serial queues, so it never waits for a handler thread.
final class HandlerThreadPool: Sendable {
    private struct State {
        var work: [@Sendable () -> Void] = []
        var head = 0
        var started = false
    }

    private let state = Mutex(State())
    /// One signal per queued item, plus one per thread when stopping.
    private let available = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let name: String

    init(threadCount: Int, name: String) {
        self.threadCount = max(1, threadCount)
        self.name = name
    }

    /// Starts the threads (once).
    func start() {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { return }
        for index in 0..<threadCount {
            // Named from the thread itself, cut to 15 bytes: on Linux Foundation applies no name set before the
            // start, and its `Thread.current.name` from inside was seen not to apply once in a full test run; the
            // kernel refuses longer names (the name is what `top -H`, `perf` and `gdb` show).
            let threadName = "\(name) \(index)"
            let thread = Thread { [self] in
                _ = cep_name_current_thread(threadName)
                run()
            }
            thread.start()
        }
    }

    /// Queues `work` for the next free thread.
    func submit(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.work.append(work) }
        available.signal()
    }

    /// Lets every thread finish the queued work and exit.
    func stop() {
        guard state.withLock({ $0.started }) else { return }
        for _ in 0..<threadCount { available.signal() }
    }

    private func run() {
        while true {
            available.wait()
            let work = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.head < state.work.count else { return nil }
                let work = state.work[state.head]
                state.head += 1
                if state.head == state.work.count {
                    state.work.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return work
            }
            // A wake-up with nothing queued is a stop signal (each queued item has its own signal).
            guard let work else { return }
            work()
        }
    }
}
