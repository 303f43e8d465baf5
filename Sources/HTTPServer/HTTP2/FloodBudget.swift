import Dispatch

/// A token bucket bounding how fast a client may send frames that cost the server work without asking for any
/// (HTTP/2 floods: PING, SETTINGS, RST_STREAM, empty DATA, …).
struct FloodBudget {
    private var tokens: Double
    private let burst: Double
    private let perNanosecond: Double
    private var refilledAt: UInt64

    /// A full bucket of `burst` tokens, refilled at `rate` per second.
    init(burst: Int, rate: Int, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.burst = Double(max(burst, 1))
        tokens = self.burst
        perNanosecond = Double(max(rate, 0)) / 1e9
        refilledAt = now
    }

    /// Adds `amount` tokens (work the client asked for, such as a request, earns it room), up to the burst.
    mutating func credit(_ amount: Double) {
        tokens = min(burst, tokens + amount)
    }

    /// Takes one token; false when none is left (the client is flooding).
    mutating func spend(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        if now > refilledAt {
            tokens = min(burst, tokens + Double(now - refilledAt) * perNanosecond)
            refilledAt = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
