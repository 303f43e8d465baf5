import Dispatch
import Synchronization
import Testing

@testable import SQLiteService

/// ReadWriteLock: the shared lock behind the settings snapshot and the metrics series.
@Suite struct ReadWriteLockTests {
    struct Pair: Sendable {
        var first: Int
        var second: Int
    }

    /// Checks that readers on other threads never see a half-done update: every update writes both halves, and
    /// every read finds them equal; all updates are kept.
    @Test func readers_neverSeeAHalfDoneUpdate() {
        let lock = ReadWriteLock(Pair(first: 0, second: 0))
        let torn = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for _ in 0..<2_000 {
                if index % 4 == 0 {
                    lock.withWriteLock { pair in
                        pair.first += 1
                        pair.second += 1
                    }
                } else {
                    let pair = lock.read()
                    if pair.first != pair.second {
                        torn.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(lock.read().first == 2 * 2_000)
        #expect(lock.withReadLock { $0.second } == 2 * 2_000)
    }

    /// Checks that update replaces the value with what its body returns, and that the service's setters swap
    /// the settings snapshot as a whole.
    @Test func update_replacesTheValue() throws {
        let lock = ReadWriteLock(Pair(first: 1, second: 2))
        lock.update { Pair(first: $0.second, second: $0.first) }
        #expect(lock.read().first == 2)
        #expect(lock.read().second == 1)

        let fixture = try ServiceFixture()
        let before = fixture.service.settings
        var limits = ServiceLimits()
        limits.maxRows = 7
        fixture.service.setLimits(limits)
        fixture.service.isAvailable = false
        let after = fixture.service.settings
        #expect(before.limits.maxRows == 100_000)
        #expect(before.isAvailable)
        #expect(after.limits.maxRows == 7)
        #expect(!after.isAvailable)
        #expect(after.options.metrics === before.options.metrics)
    }
}
