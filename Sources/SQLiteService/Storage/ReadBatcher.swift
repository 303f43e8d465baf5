import Dispatch
import Synchronization

/// Gathers items handed in from any thread (the event loops) and runs them in batches on a few workers (serial
/// Dispatch queues), each taking up to ``batchLimit`` of the items waiting when it is free.
///
/// No thread waits per item: while the workers are busy, items wait here and go together into the next batch, so
/// the busier the service, the larger its batches (the cluster's reads: one leader round trip per batch, where a
/// handler thread per read cost two thread hand-offs and a round trip each, issue #26). Few workers make large
/// batches; ``workers`` of them run at once.
///
/// A slow batch (a long query) would hold its worker, and everything waiting behind the busy workers with it. So a
/// batch running for longer than ``stallAfter`` no longer counts: one more worker may start for each, up to
/// ``maxWorkers`` in all, found by a check armed while items wait; a worker past the count in force stops when its
/// batch ends. A worker that finds nothing waiting stops; the next item starts one again.
final class ReadBatcher<Item: Sendable>: Sendable {
    private struct State {
        var waiting: [Item] = []
        /// The workers not running, by index into `queues`.
        var idle: [Int]
        /// When each running worker's current batch started.
        var running: [Int: ContinuousClock.Instant] = [:]
        /// Whether a stall check is scheduled.
        var checkArmed = false
    }

    let batchLimit: Int
    let workers: Int
    let maxWorkers: Int
    let stallAfter: Duration
    private let queues: [DispatchQueue]
    private let checkQueue: DispatchQueue
    private let state: Mutex<State>

    /// - Parameters:
    ///   - label: The prefix of the worker queues' labels (for debuggers and profiles).
    ///   - workers: How many batches run at once while none is stalled (at least 1).
    ///   - maxWorkers: How many run at once with stalled ones (at least `workers`).
    ///   - batchLimit: The most items one batch takes (at least 1).
    ///   - stallAfter: How long a batch runs before it no longer counts against `workers`.
    init(label: String, workers: Int, maxWorkers: Int, batchLimit: Int, stallAfter: Duration) {
        precondition(workers >= 1 && maxWorkers >= workers && batchLimit >= 1)
        self.workers = workers
        self.maxWorkers = maxWorkers
        self.batchLimit = batchLimit
        self.stallAfter = stallAfter
        queues = (0..<maxWorkers).map { DispatchQueue(label: "\(label).\($0 + 1)") }
        checkQueue = DispatchQueue(label: "\(label).stall-check")
        state = Mutex(State(idle: Array((0..<maxWorkers).reversed())))
    }

    /// Queues `item` and starts a worker if one may start now; every item is handed to `run` exactly once, in the
    /// order submitted within a batch. All calls of one batcher pass the same `run`.
    func submit(_ item: Item, run: @escaping @Sendable ([Item]) -> Void) {
        let (started, armCheck) = state.withLock { state -> ([Int], Bool) in
            state.waiting.append(item)
            let started = startable(&state, now: .now)
            return (started, arm(&state))
        }
        start(started, run: run)
        if armCheck { scheduleCheck(run: run) }
    }

    /// How many items wait for a worker (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// How many workers run (for tests).
    var runningCount: Int { state.withLock { $0.running.count } }

    /// How many workers may run at `now`: ``workers``, plus one for each batch running for over ``stallAfter``.
    private func allowed(_ state: State, now: ContinuousClock.Instant) -> Int {
        let stalled = state.running.values.count { now - $0 > stallAfter }
        return min(maxWorkers, workers + stalled)
    }

    /// Marks as running the workers that may start now for the items waiting, and returns them.
    private func startable(_ state: inout State, now: ContinuousClock.Instant) -> [Int] {
        var started: [Int] = []
        let limit = allowed(state, now: now)
        while state.running.count < limit, state.waiting.count > started.count * batchLimit,
            let worker = state.idle.popLast()
        {
            state.running[worker] = now
            started.append(worker)
        }
        return started
    }

    /// Whether a stall check must be scheduled now: items wait for busy workers and none is scheduled.
    private func arm(_ state: inout State) -> Bool {
        guard !state.waiting.isEmpty, !state.running.isEmpty, !state.checkArmed else { return false }
        state.checkArmed = true
        return true
    }

    private func start(_ started: [Int], run: @escaping @Sendable ([Item]) -> Void) {
        for worker in started {
            queues[worker].async { self.drain(worker, run: run) }
        }
    }

    private func scheduleCheck(run: @escaping @Sendable ([Item]) -> Void) {
        checkQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(stallAfter.clampedNanoseconds))) {
            let (started, rearm) = self.state.withLock { state -> ([Int], Bool) in
                state.checkArmed = false
                let started = self.startable(&state, now: .now)
                return (started, self.arm(&state))
            }
            self.start(started, run: run)
            if rearm { self.scheduleCheck(run: run) }
        }
    }

    private func drain(_ worker: Int, run: @Sendable ([Item]) -> Void) {
        while true {
            let batch = state.withLock { state -> [Item] in
                let now = ContinuousClock.now
                // Past the count in force (a stalled batch ended, or the extra worker's own did): stop.
                state.running[worker] = nil
                guard !state.waiting.isEmpty, state.running.count < allowed(state, now: now) else {
                    state.idle.append(worker)
                    return []
                }
                state.running[worker] = now
                let count = min(batchLimit, state.waiting.count)
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }
}
