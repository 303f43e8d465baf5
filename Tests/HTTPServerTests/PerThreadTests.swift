import Foundation
import Synchronization
import Testing

import ThreadStorage

/// A `PerThread` value is made once per thread and kept for that thread; another thread gets its own.
@Suite struct PerThreadTests {
    final class Counter {
        var count = 0
    }

    final class MadeCount: Sendable {
        let value = Atomic<Int>(0)
    }

    @Test func value_isOnePerThread() {
        let made = MadeCount()
        let values = PerThread { () -> Counter in
            made.value.add(1, ordering: .relaxed)
            return Counter()
        }
        values.value.count += 1
        values.value.count += 1
        #expect(values.value.count == 2)
        #expect(made.value.load(ordering: .relaxed) == 1)

        let otherCount = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            values.value.count += 10
            otherCount.withLock { $0 = values.value.count }
            done.signal()
        }.start()
        done.wait()
        #expect(otherCount.withLock { $0 } == 10)
        #expect(values.value.count == 2)
        #expect(made.value.load(ordering: .relaxed) == 2)
    }
}
