import Dispatch
import Synchronization

/// The right to use a ``DatabasePool``'s writer: held by one ``DatabasePool/write(waitingUntil:_:)`` call at a time,
/// or by a ``WriterLease`` across many calls (an interactive transaction), granted first come, first served.
///
/// A lock whose waits have a deadline, which `DispatchQueue.sync` on the writer's queue cannot give: a write that
/// finds the writer leased waits until its deadline and then fails with
/// ``DatabaseError/Kind-swift.enum/writerTimeout`` instead of waiting for the whole transaction. A release hands the
/// gate straight to the first waiter, so a lease waiting between two group commits is not overtaken by the next
/// group (and the reverse).
final class WriterGate: Sendable {
    /// One thread waiting for the gate.
    ///
    /// `@unchecked Sendable`: `granted` is read and written only under the gate's `state` lock.
    private final class Waiter: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var granted = false
    }

    private struct State {
        var isHeld = false
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Takes the gate, waiting until `deadline` at most (nil: as long as it takes); false when the deadline came
    /// first.
    func acquire(until deadline: ContinuousClock.Instant?) -> Bool {
        acquire(until: deadline, waited: nil)
    }

    /// ``acquire(until:)``, telling through `waited` whether the gate was in use when asked for.
    func acquire(until deadline: ContinuousClock.Instant?, waited: UnsafeMutablePointer<Bool>?) -> Bool {
        let waiter: Waiter? = state.withLock { state in
            if !state.isHeld && state.waiters.isEmpty {
                state.isHeld = true
                return nil
            }
            let waiter = Waiter()
            state.waiters.append(waiter)
            return waiter
        }
        waited?.pointee = waiter != nil
        guard let waiter else { return true }
        guard let deadline else {
            waiter.semaphore.wait()
            return true
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = max(remaining, .zero).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        if waiter.semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success {
            return true
        }
        return state.withLock { state in
            // Granted between the timeout and this lock: the gate is ours after all.
            if waiter.granted { return true }
            state.waiters.removeAll { $0 === waiter }
            return false
        }
    }

    /// Gives the gate up: to the first waiter, or free.
    func release() {
        let next: Waiter? = state.withLock { state in
            precondition(state.isHeld, "the writer gate was released without being held")
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            let first = state.waiters.removeFirst()
            first.granted = true
            return first
        }
        next?.semaphore.signal()
    }

    /// How many threads wait for the gate (for tests and metrics).
    var waitingCount: Int {
        state.withLock { $0.waiters.count }
    }
}
