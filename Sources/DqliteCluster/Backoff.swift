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
