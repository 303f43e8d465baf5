import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// DatabasePool: the non-blocking tryRead, read isolation, and waiting reads woken by check-ins (on the suite's
/// pool of two readers).
extension DatabasePoolTests {
    /// Holds `count` readers of `pool` in other threads until `release` is called.
    final class HeldReaders: Sendable {
        private let release = DispatchSemaphore(value: 0)
        private let done = DispatchGroup()
        private let count: Int

        init(_ pool: DatabasePool, count: Int) {
            self.count = count
            let inside = DispatchGroup()
            for _ in 0..<count {
                inside.enter()
                onNewThread(group: done) { [release] in
                    _ = try? pool.read { _ in
                        inside.leave()
                        release.wait()
                    }
                }
            }
            inside.wait()
        }

        func releaseAll() {
            for _ in 0..<count { release.signal() }
            done.wait()
        }
    }

    /// Checks that tryRead opens a reader lazily, reuses it, and runs the body on a read-only connection.
    @Test func tryRead_opensAndReusesReaders() throws {
        #expect(pool.statistics == (0, 0))
        let count = try pool.tryRead { db in try db.int64(sql: "SELECT count(*) FROM t") }
        #expect(count == 1)
        #expect(pool.statistics == (1, 0))
        let readOnly = try pool.tryRead { db in db.isReadOnly }
        #expect(readOnly == true)
        #expect(pool.statistics == (1, 0))
        let insert = databaseError { _ = try pool.tryRead { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } }
        #expect(insert?.resultCode == .SQLITE_READONLY)
        #expect(pool.statistics == (1, 0))
    }

    /// Checks that tryRead returns nil without running its body when every reader is checked out, and works again
    /// once one is checked in.
    @Test func tryRead_returnsNilWhenEveryReaderIsBusy() throws {
        let held = HeldReaders(pool, count: 2)
        #expect(pool.statistics == (2, 2))
        let ran = Mutex(false)
        let result: Void? = try pool.tryRead { _ in ran.withLock { $0 = true } }
        #expect(result == nil)
        #expect(!ran.withLock { $0 })
        #expect(pool.statistics == (2, 2))
        held.releaseAll()
        #expect(try pool.tryRead { db in try db.int64(sql: "SELECT 7") } == 7)
    }

    /// Checks that the snapshot isolation keeps one snapshot across statements while the statement isolation
    /// lets each statement see the latest commit, and that neither leaves a transaction open.
    @Test func readIsolation_snapshotVersusStatement() throws {
        let pool = self.pool
        func commitElsewhere() {
            let done = DispatchSemaphore(value: 0)
            onNewThread {
                _ = try? pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
                done.signal()
            }
            done.wait()
        }
        let snapshot = try pool.read(isolation: .snapshot) { db -> [Int64?] in
            #expect(db.isInTransaction)
            let first = try db.int64(sql: "SELECT count(*) FROM t")
            commitElsewhere()
            return [first, try db.int64(sql: "SELECT count(*) FROM t")]
        }
        #expect(snapshot == [1, 1])
        let perStatement = try pool.tryRead(isolation: .statement) { db -> [Int64?] in
            #expect(!db.isInTransaction)
            let first = try db.int64(sql: "SELECT count(*) FROM t")
            commitElsewhere()
            return [first, try db.int64(sql: "SELECT count(*) FROM t")]
        }
        #expect(perStatement == [2, 3])
        #expect(try pool.tryRead(isolation: .statement) { db in db.isInTransaction } == false)
    }

    /// Checks that a blocked read is woken when a reader is checked in (long before its wait time ends), and that
    /// the pool's counters come back to rest.
    @Test func read_waitingIsWokenByCheckIn() throws {
        let held = HeldReaders(pool, count: 2)
        let pool = self.pool
        let result = Mutex<Int64?>(nil)
        let finished = DispatchSemaphore(value: 0)
        onNewThread {
            let value = try? pool.read { db in try db.int64(sql: "SELECT 42") }
            result.withLock { $0 = value ?? nil }
            finished.signal()
        }
        while pool.waitingReadCount == 0 {
            usleep(1000)
        }
        held.releaseAll()
        finished.wait()
        #expect(result.withLock { $0 } == 42)
        #expect(pool.waitingReadCount == 0)
        #expect(pool.statistics == (2, 0))
    }

    /// Checks that closing the pool makes a blocked read fail with misuse instead of waiting out its timeout.
    @Test func close_failsWaitingReads() throws {
        let held = HeldReaders(pool, count: 2)
        let pool = self.pool
        let failure = Mutex<DatabaseError?>(nil)
        let finished = DispatchSemaphore(value: 0)
        onNewThread {
            let error = databaseError { try pool.read { _ in } }
            failure.withLock { $0 = error }
            finished.signal()
        }
        while pool.waitingReadCount == 0 {
            usleep(1000)
        }
        try pool.close()
        finished.wait()
        #expect(failure.withLock { $0 }?.kind == .misuse)
        held.releaseAll()
        #expect(pool.statistics.openReaders == 0)
        #expect(databaseError { _ = try pool.tryRead { _ in } }?.kind == .misuse)
    }
}
