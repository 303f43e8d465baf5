import Glibc

/// Exponential waits between attempts, never past a deadline: 10 ms doubling up to 200 ms by default.
struct Backoff {
    private var next: Duration
    private let maximum: Duration

    init(initial: Duration = .milliseconds(10), maximum: Duration = .milliseconds(200)) {
        next = initial
        self.maximum = maximum
    }

    /// Sleeps for the next wait, cut short at `deadline`; returns `false` (without sleeping) once it has passed.
    mutating func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let left = deadline - .now
        guard left > .zero else { return false }
        let pause = min(next, left)
        next = min(next * 2, maximum)
        let (seconds, attoseconds) = pause.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
        return true
    }
}

extension Backoff {
    /// Short waits between attempts while the leader's write lock is held by another connection (`SQLITE_BUSY`):
    /// 200 µs doubling up to 2 ms.
    ///
    /// Not the default (10 → 200 ms), which waits for a leader to be elected or a connection to come back, where
    /// asking sooner is pointless. A lock holder here is another node's group or transaction, which holds the lock
    /// for about one Raft round (a few milliseconds on a loopback cluster); waiting 10–200 ms after it let go was
    /// where the cluster's writes spent their p50 of 141–156 ms (issue #26, measured in docs/cluster.md).
    static var lockHeld: Backoff {
        Backoff(initial: .microseconds(200), maximum: .milliseconds(2))
    }
}
