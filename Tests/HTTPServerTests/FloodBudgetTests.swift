import Testing

@testable import HTTPServer

/// `FloodBudget` is a token bucket: a full burst to begin with, one token per frame, refilled at its rate with the
/// time that passed and by credit, never above the burst.
@Suite struct FloodBudgetTests {
    private static let second: UInt64 = 1_000_000_000

    /// Spends until refused; returns how many were allowed (at most `limit`).
    private static func spendAll(_ budget: inout FloodBudget, now: UInt64, limit: Int = 10_000) -> Int {
        var spent = 0
        while spent < limit, budget.spend(now: now) { spent += 1 }
        return spent
    }

    @Test func aFullBurst_isAllowedThenRefused() {
        var budget = FloodBudget(burst: 5, rate: 0, now: 0)
        #expect(Self.spendAll(&budget, now: 0) == 5)
        #expect(budget.spend(now: 0) == false)
        #expect(budget.spend(now: 100 * Self.second) == false, "a rate of zero never refills")
    }

    /// Tokens come back at `rate` per second, in proportion to the time passed.
    @Test func tokens_refillWithTime() {
        var budget = FloodBudget(burst: 10, rate: 4, now: 0)
        #expect(Self.spendAll(&budget, now: 0) == 10)
        // A quarter of a second earns one token at 4 per second.
        #expect(budget.spend(now: Self.second / 4) == true)
        #expect(budget.spend(now: Self.second / 4) == false)
        // An eighth of a second more is half a token: not enough.
        #expect(budget.spend(now: Self.second * 3 / 8) == false)
        // Another eighth completes it.
        #expect(budget.spend(now: Self.second / 2) == true)
        // One second later: four tokens.
        #expect(Self.spendAll(&budget, now: Self.second * 3 / 2) == 4)
    }

    /// However long the pause, the bucket holds no more than its burst.
    @Test func refill_stopsAtTheBurst() {
        var budget = FloodBudget(burst: 3, rate: 1000, now: 0)
        #expect(Self.spendAll(&budget, now: 0) == 3)
        #expect(Self.spendAll(&budget, now: 3600 * Self.second) == 3)
    }

    /// A clock that goes back (or stands still) refills nothing and does not fail.
    @Test func aClockGoingBack_refillsNothing() {
        var budget = FloodBudget(burst: 2, rate: 1, now: 10 * Self.second)
        #expect(Self.spendAll(&budget, now: 10 * Self.second) == 2)
        #expect(budget.spend(now: 5 * Self.second) == false)
        #expect(budget.spend(now: 10 * Self.second) == false)
        // Time is measured from the last refill seen, not from the earlier instant.
        #expect(budget.spend(now: 11 * Self.second) == true)
    }

    /// Credit adds tokens, fractions included, up to the burst.
    @Test func credit_addsUpToTheBurst() {
        var budget = FloodBudget(burst: 4, rate: 0, now: 0)
        #expect(Self.spendAll(&budget, now: 0) == 4)
        budget.credit(0.5)
        #expect(budget.spend(now: 0) == false)
        budget.credit(0.5)
        #expect(budget.spend(now: 0) == true)
        budget.credit(100)
        #expect(Self.spendAll(&budget, now: 0) == 4)
    }

    /// A burst below one is one (a connection can always send a first frame); a negative rate is no refill.
    @Test func degenerateSettings_areMadeSafe() {
        var zero = FloodBudget(burst: 0, rate: 10, now: 0)
        #expect(Self.spendAll(&zero, now: 0) == 1)
        var negative = FloodBudget(burst: -3, rate: -10, now: 0)
        #expect(Self.spendAll(&negative, now: 0) == 1)
        #expect(negative.spend(now: 100 * Self.second) == false)
    }

    /// Without an explicit instant the budget reads the monotonic clock.
    @Test func theDefaultClock_works() {
        var budget = FloodBudget(burst: 2, rate: 0)
        #expect(budget.spend() == true)
        #expect(budget.spend() == true)
        #expect(budget.spend() == false)
    }
}
