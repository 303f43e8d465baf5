import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// ``WriterLease`` and ``ReaderLease``: the writer and a reader held across calls.
@Suite struct WriterLeaseTests {
    private static func pool() throws -> (DatabasePool, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (0)")
        }
        return (pool, directory)
    }

    /// Checks that a transaction under a lease stays open across calls from different threads, that writes wait
    /// for the lease until their deadline (then `writerTimeout`, `SQLITE_BUSY`), and that `release` rolls back
    /// what is left open and lets the waiting write in.
    @Test func lease_holdsTheWriterAcrossCalls() throws {
        let (pool, directory) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lease = try pool.leaseWriter(waitingUntil: nil)
        #expect(!lease.waited)
        try lease.run { db in try db.beginTransaction(.immediate) }
        DispatchQueue.global().sync {
            _ = try? lease.run { db in try db.execute(sql: "UPDATE t SET x = 1") }
        }
        #expect(throws: DatabaseError.self) {
            try pool.write(waitingUntil: .now + .milliseconds(100)) { db in try db.execute(sql: "UPDATE t SET x = 2") }
        }
        do {
            try pool.write(waitingUntil: .now + .milliseconds(50)) { _ in }
        } catch let error as DatabaseError {
            #expect(error.kind == .writerTimeout)
            #expect(error.resultCode == .SQLITE_BUSY)
        }
        let waited = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? pool.write { db in try db.execute(sql: "UPDATE t SET x = x + 10") }
            waited.store(true, ordering: .sequentiallyConsistent)
            done.signal()
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while pool.writerWaitCount < 1, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        let waitedYet = waited.load(ordering: .sequentiallyConsistent)
        #expect(!waitedYet)
        #expect(pool.writerWaitCount == 1)
        lease.release()
        lease.release()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(try pool.read { db in try db.int64(sql: "SELECT x FROM t") } == 10)
        #expect(throws: DatabaseError.self) { try lease.run { _ in } }
        try pool.close()
    }

    /// Checks that leases and writes are granted first come, first served.
    @Test func gate_isFirstComeFirstServed() throws {
        let (pool, directory) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try pool.leaseWriter(waitingUntil: nil)
        let order = Mutex<[Int]>([])
        let group = DispatchGroup()
        for index in 0..<4 {
            group.enter()
            DispatchQueue.global().async {
                try? pool.write { _ in order.withLock { $0.append(index) } }
                group.leave()
            }
            while pool.writerWaitCount < index + 1 { Thread.sleep(forTimeInterval: 0.005) }
        }
        first.release()
        #expect(group.wait(timeout: .now() + 5) == .success)
        #expect(order.withLock { $0 } == [0, 1, 2, 3])
        try pool.close()
    }

    /// Checks that a reader lease keeps one snapshot across calls while the writer commits, and gives the reader
    /// back at release.
    @Test func readerLease_keepsOneSnapshot() throws {
        let (pool, directory) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lease = try pool.leaseReader()
        let first = try lease.run { db in
            try db.beginTransaction(.deferred)
            return try db.int64(sql: "SELECT x FROM t")
        }
        #expect(first == 0)
        try pool.write { db in try db.execute(sql: "UPDATE t SET x = 5") }
        let seen = try lease.run { db in try db.int64(sql: "SELECT x FROM t") }
        #expect(seen == 0)
        #expect(pool.statistics.busyReaders == 1)
        lease.release()
        #expect(pool.statistics.busyReaders == 0)
        #expect(try pool.read { db in try db.int64(sql: "SELECT x FROM t") } == 5)
        try pool.close()
    }
}
