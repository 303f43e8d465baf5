import Foundation
import Synchronization
import Testing

@testable import SQLiteService

/// ``ReadBatcher``: items handed in while the workers are busy wait and go together into the next batch.
@Suite(.timeLimit(.minutes(1)))
struct ReadBatcherTests {
    /// What the batches saw: the batches in the order they ran, and the most running at once.
    private final class Record: Sendable {
        let state = Mutex<(batches: [[Int]], running: Int, mostRunning: Int)>(([], 0, 0))
        var batches: [[Int]] { state.withLock { $0.batches } }
        var mostRunning: Int { state.withLock { $0.mostRunning } }
        var itemCount: Int { state.withLock { $0.batches.reduce(0) { $0 + $1.count } } }

        func wait(forItems count: Int) {
            let deadline = ContinuousClock.now + .seconds(20)
            while itemCount < count && ContinuousClock.now < deadline { usleep(1000) }
        }
    }

    /// A batcher of one worker (batches of up to 8) whose first batch, item 0, runs and is held until `gate` is
    /// signalled: its record, the gate and the `run` every later item must be submitted with.
    private static func heldBatcher(
        maxWorkers: Int,
        stallAfter: Duration
    ) -> (ReadBatcher<Int>, Record, DispatchSemaphore, @Sendable ([Int]) -> Void) {
        let batcher = ReadBatcher<Int>(
            label: "test.batcher",
            workers: 1,
            maxWorkers: maxWorkers,
            batchLimit: 8,
            stallAfter: stallAfter
        )
        let record = Record()
        let gate = DispatchSemaphore(value: 0)
        let run: @Sendable ([Int]) -> Void = { batch in
            record.state.withLock { $0.batches.append(batch) }
            if batch == [0] { gate.wait() }
        }
        batcher.submit(0, run: run)
        let started = ContinuousClock.now + .seconds(10)
        while record.batches.isEmpty && ContinuousClock.now < started { usleep(1000) }
        return (batcher, record, gate, run)
    }

    /// Checks that items submitted while the only worker runs a batch wait, then run in one batch in the order
    /// submitted, each exactly once, and that a batch takes at most `batchLimit` of them.
    @Test func itemsWaitingForTheWorker_runTogether() {
        let (batcher, record, gate, run) = Self.heldBatcher(maxWorkers: 4, stallAfter: .seconds(60))
        // The worker holds item 0 until the gate opens: the next twelve wait.
        for item in 1...12 { batcher.submit(item, run: run) }
        #expect(batcher.waitingCount == 12)
        gate.signal()
        record.wait(forItems: 13)
        #expect(record.batches == [[0], Array(1...8), Array(9...12)])
        #expect(batcher.waitingCount == 0)
    }

    /// Checks that no more batches run at once than there are workers, that every item runs once, and that a
    /// batcher whose workers all ended starts one again for the next item.
    @Test func batchesRunAtMostWorkersAtOnce_andEveryItemOnce() {
        let batcher = ReadBatcher<Int>(
            label: "test.batcher",
            workers: 3,
            maxWorkers: 3,
            batchLimit: 4,
            stallAfter: .seconds(60)
        )
        let record = Record()
        let run: @Sendable ([Int]) -> Void = { batch in
            record.state.withLock {
                $0.batches.append(batch)
                $0.running += 1
                $0.mostRunning = max($0.mostRunning, $0.running)
            }
            usleep(2000)
            record.state.withLock { $0.running -= 1 }
        }
        DispatchQueue.concurrentPerform(iterations: 200) { item in batcher.submit(item, run: run) }
        record.wait(forItems: 200)
        #expect(record.batches.flatMap { $0 }.sorted() == Array(0..<200))
        #expect(record.batches.allSatisfy { $0.count <= 4 })
        #expect(record.mostRunning <= 3)
        // Every worker found nothing waiting and ended; a new item starts one.
        usleep(50_000)
        batcher.submit(1000, run: run)
        record.wait(forItems: 201)
        #expect(record.batches.last == [1000])
    }

    /// Checks that a batch held longer than `stallAfter` does not hold the items behind it: another worker starts
    /// and runs them while the slow one still runs, and once it ends the workers are back to their count.
    @Test func itemsBehindAStalledBatch_runOnAnotherWorker() {
        let (batcher, record, gate, run) = Self.heldBatcher(maxWorkers: 2, stallAfter: .milliseconds(20))
        batcher.submit(1, run: run)
        batcher.submit(2, run: run)
        // Item 0's batch is still held: 1 and 2 run beside it once it counts as stalled.
        record.wait(forItems: 3)
        #expect(record.batches == [[0], [1, 2]])
        #expect(batcher.runningCount == 1)
        gate.signal()
        let ended = ContinuousClock.now + .seconds(10)
        while batcher.runningCount > 0 && ContinuousClock.now < ended { usleep(1000) }
        #expect(batcher.runningCount == 0)
        batcher.submit(3, run: run)
        record.wait(forItems: 4)
        #expect(record.batches.last == [3])
    }
}
