import Dispatch
import Foundation
import Synchronization
import Testing

@testable import HTTPServer

/// `HandlerThreadPool` runs submitted work on its own threads, never more at once than it has threads, in the order
/// submitted when it has one thread; work submitted before `start` waits for it; `stop` lets queued work finish.
@Suite struct HandlerThreadPoolTests {
    /// What the work items saw: how many ran at once, at most, and in which order and on which threads they ran.
    final class Observations: Sendable {
        private struct State {
            var running = 0
            var mostAtOnce = 0
            var order: [Int] = []
            var threads: Set<UInt> = []
            var threadNames: Set<String> = []
        }

        private let state = Mutex(State())
        let finished = DispatchSemaphore(value: 0)

        var running: Int { state.withLock { $0.running } }
        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
        var order: [Int] { state.withLock { $0.order } }
        /// The threads the items ran on (`pthread_self`).
        var threads: Set<UInt> { state.withLock { $0.threads } }
        /// The threads' names as the system knows them (what `top -H`, `gdb` and `perf` show).
        var threadNames: Set<String> { state.withLock { $0.threadNames } }

        func begin(_ index: Int) {
            let thread = UInt(pthread_self())
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            state.withLock { state in
                state.running += 1
                state.mostAtOnce = max(state.mostAtOnce, state.running)
                state.order.append(index)
                state.threads.insert(thread)
                state.threadNames.insert(name.trimmingCharacters(in: .newlines))
            }
        }

        func end() {
            state.withLock { $0.running -= 1 }
            finished.signal()
        }

        /// Waits for `count` items to finish; false after 10 s.
        func waitForFinished(_ count: Int) -> Bool {
            for _ in 0..<count {
                guard finished.wait(timeout: .now() + 10) == .success else { return false }
            }
            return true
        }

        /// Waits until `count` items are running at once; false after 10 s.
        func waitForRunning(_ count: Int) -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while running < count {
                guard ContinuousClock.now < deadline else { return false }
                usleep(1000)
            }
            return true
        }
    }

    /// Work runs on the pool's threads: not the submitter's, and no more threads than the pool has.
    @Test func submittedWork_runsOnThePoolsThreads() {
        let pool = HandlerThreadPool(threadCount: 2, name: "pool")
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        for index in 0..<20 {
            pool.submit {
                seen.begin(index)
                seen.end()
            }
        }
        #expect(seen.waitForFinished(20))
        #expect(Set(seen.order) == Set(0..<20) && seen.order.count == 20)
        #expect((1...2).contains(seen.threads.count))
        #expect(!seen.threads.contains(UInt(pthread_self())))
    }

    /// Each thread carries the pool's name and its index, as the system shows it (`top -H`, `gdb`, `perf`).
    ///
    /// (It failed while the pool set `Thread.name` before `start()`, which swift-corelibs-foundation does not apply
    /// on Linux, and named the server's threads "sqlited.http.handler N", longer than the kernel's 15 bytes.)
    @Test func threads_carryThePoolsNameAndIndex() {
        let pool = HandlerThreadPool(threadCount: 2, name: "pool")
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        for index in 0..<20 {
            pool.submit {
                seen.begin(index)
                seen.end()
            }
        }
        #expect(seen.waitForFinished(20))
        #expect(seen.threadNames.isSubset(of: ["pool 0", "pool 1"]))
    }

    /// A name longer than the kernel takes is cut to its first 15 bytes, not dropped.
    @Test func longName_isCutTo15Bytes() {
        let pool = HandlerThreadPool(threadCount: 1, name: "a-very-long-pool-name")
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        pool.submit {
            seen.begin(0)
            seen.end()
        }
        #expect(seen.waitForFinished(1))
        #expect(seen.threadNames == ["a-very-long-poo"])
    }

    /// With every thread busy, the next item waits: never more items at once than threads.
    @Test func work_neverRunsOnMoreThreadsThanThePoolHas() {
        let pool = HandlerThreadPool(threadCount: 2, name: "bounded")
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<5 {
            pool.submit {
                seen.begin(index)
                gate.wait()
                seen.end()
            }
        }
        #expect(seen.waitForRunning(2))
        // Time for a third thread to pick an item up, were there one.
        usleep(100_000)
        #expect(seen.running == 2)
        for _ in 0..<5 { gate.signal() }
        #expect(seen.waitForFinished(5))
        #expect(seen.mostAtOnce == 2)
        #expect(seen.order.count == 5)
    }

    /// One thread runs the queue in the order it was submitted.
    @Test func oneThread_runsWorkInOrder() {
        let pool = HandlerThreadPool(threadCount: 1, name: "serial")
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        for index in 0..<50 {
            pool.submit {
                seen.begin(index)
                seen.end()
            }
        }
        #expect(seen.waitForFinished(50))
        #expect(seen.order == Array(0..<50))
        #expect(seen.mostAtOnce == 1)
    }

    /// A count below one is one thread; starting twice starts no more threads.
    @Test func threadCount_isAtLeastOneAndStartIsOnce() {
        let pool = HandlerThreadPool(threadCount: 0, name: "tiny")
        pool.start()
        pool.start()
        defer { pool.stop() }
        let seen = Observations()
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<3 {
            pool.submit {
                seen.begin(index)
                gate.wait()
                seen.end()
            }
        }
        #expect(seen.waitForRunning(1))
        usleep(100_000)
        #expect(seen.running == 1)
        for _ in 0..<3 { gate.signal() }
        #expect(seen.waitForFinished(3))
        #expect(seen.mostAtOnce == 1 && seen.threads.count == 1)
    }

    /// Work submitted before `start` is kept and runs once the threads start.
    @Test func workSubmittedBeforeStart_runsAfterIt() {
        let pool = HandlerThreadPool(threadCount: 2, name: "late")
        let seen = Observations()
        for index in 0..<3 {
            pool.submit {
                seen.begin(index)
                seen.end()
            }
        }
        usleep(50_000)
        #expect(seen.order.isEmpty)
        pool.start()
        defer { pool.stop() }
        #expect(seen.waitForFinished(3))
        #expect(Set(seen.order) == [0, 1, 2])
    }

    /// `stop` lets every item already queued run before the threads exit; before `start` it does nothing.
    @Test func stop_letsQueuedWorkFinish() {
        let idle = HandlerThreadPool(threadCount: 1, name: "idle")
        idle.stop()
        let pool = HandlerThreadPool(threadCount: 2, name: "stopping")
        pool.start()
        let seen = Observations()
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<6 {
            pool.submit {
                seen.begin(index)
                if index < 2 { gate.wait() }
                seen.end()
            }
        }
        #expect(seen.waitForRunning(2))
        pool.stop()
        gate.signal()
        gate.signal()
        #expect(seen.waitForFinished(6))
        #expect(Set(seen.order) == Set(0..<6))
    }
}
