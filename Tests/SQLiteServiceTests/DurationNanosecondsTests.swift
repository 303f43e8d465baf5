import Testing

@testable import SQLiteService

/// The request duration handed to the metrics and the log: whole nanoseconds, clamped rather than trapping.
@Test func clampedNanoseconds_convertsAndClamps() {
    #expect(Duration.zero.clampedNanoseconds == 0)
    #expect((Duration.milliseconds(12) + .nanoseconds(345)).clampedNanoseconds == 12_000_345)
    #expect(Duration.nanoseconds(-7).clampedNanoseconds == -7)
    #expect(Duration.seconds(Int64.max).clampedNanoseconds == .max)
    #expect(Duration.seconds(Int64.min).clampedNanoseconds == .min)
    #expect(Duration.seconds(9_223_372_036).clampedNanoseconds == 9_223_372_036_000_000_000)
    #expect((Duration.seconds(9_223_372_036) + .milliseconds(900)).clampedNanoseconds == .max)
}
