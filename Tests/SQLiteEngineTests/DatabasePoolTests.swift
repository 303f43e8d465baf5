import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// DatabasePool: one WAL writer and concurrent readers.
@Suite struct DatabasePoolTests {
    let directory: TemporaryDirectory
    let pool: DatabasePool

    init() throws {
        directory = try TemporaryDirectory()
        pool = try DatabasePool(
            path: directory.path(),
            configuration: .init(maximumReaderCount: 2, readerWaitTimeout: .seconds(30), configuration: .init())
        )
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
    }

    /// Checks that the writer is in WAL mode and that a pool refuses an in-memory database.
    @Test func init_forcesWAL() throws {
        #expect(try pool.write { db in try db.journalMode } == .wal)
        let error = databaseError { _ = try DatabasePool(path: ":memory:", configuration: .init()) }
        #expect(error?.kind == .misuse)
    }

    /// Checks that a read sees one snapshot while the writer commits from another thread, and a later read sees
    /// the commit.
    @Test func read_seesConsistentSnapshotWhileWriterCommits() throws {
        let pool = self.pool
        let (before, after) = try pool.read { db -> (Int64?, Int64?) in
            let before = try db.int64(sql: "SELECT count(*) FROM t")
            let done = DispatchSemaphore(value: 0)
            let writeError = Mutex<(any Error)?>(nil)
            onNewThread {
                do {
                    try pool.writeInTransaction { db in
                        try db.execute(sql: "INSERT INTO t VALUES (2)")
                        try db.execute(sql: "INSERT INTO t VALUES (3)")
                    }
                } catch {
                    writeError.withLock { $0 = error }
                }
                done.signal()
            }
            done.wait()
            #expect(writeError.withLock { $0 } == nil)
            return (before, try db.int64(sql: "SELECT count(*) FROM t"))
        }
        #expect(before == 1)
        #expect(after == 1)
        #expect(try pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") } == 3)
    }

    /// Checks that readers cannot write, even with statements that a read-only connection could run.
    @Test func read_cannotWrite() throws {
        let insert = try #require(
            databaseError { try pool.read { db in try db.execute(sql: "INSERT INTO t VALUES (9)") } }
        )
        #expect(insert.resultCode == .SQLITE_READONLY)
        let create = try #require(databaseError { try pool.read { db in try db.execute(sql: "CREATE TABLE u(x)") } })
        #expect(create.resultCode == .SQLITE_READONLY)
        #expect(try pool.read { db in try db.int64(sql: "PRAGMA query_only") } == 1)
        #expect(try pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") } == 1)
    }

    /// Checks that a read waits a bounded time for a free reader and then fails with poolTimeout; statistics.
    @Test func read_waitsBoundedForFreeReader() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.path(),
            configuration: .init(maximumReaderCount: 1, readerWaitTimeout: .milliseconds(100), configuration: .init())
        )
        #expect(pool.statistics == (0, 0))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        onNewThread {
            _ = try? pool.read { _ in
                holding.signal()
                release.wait()
            }
            finished.signal()
        }
        holding.wait()
        #expect(pool.statistics == (1, 1))
        let error = try #require(databaseError { try pool.read { _ in } })
        #expect(error.kind == .poolTimeout)
        release.signal()
        finished.wait()
        #expect(pool.statistics == (1, 0))
        #expect(try pool.read { db in try db.int64(sql: "SELECT 5") } == 5)
        #expect(pool.statistics == (1, 0))
    }

    /// Checks that readers are opened lazily, reused, and run concurrently up to the maximum.
    @Test func readers_openLazilyAndRunConcurrently() throws {
        #expect(pool.statistics.openReaders == 0)
        let bothInside = DispatchGroup()
        bothInside.enter()
        bothInside.enter()
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let pool = self.pool
        for _ in 0..<2 {
            onNewThread(group: done) {
                _ = try? pool.read { db in
                    bothInside.leave()
                    release.wait()
                    return try db.int64(sql: "SELECT count(*) FROM t")
                }
            }
        }
        bothInside.wait()
        #expect(pool.statistics == (2, 2))
        release.signal()
        release.signal()
        done.wait()
        #expect(pool.statistics == (2, 0))
        for _ in 0..<5 {
            _ = try pool.read { db in try db.int64(sql: "SELECT 1") }
        }
        #expect(pool.statistics.openReaders == 2)
    }

    /// Checks that a write may not leave a transaction open and that writeInTransaction rolls back on throw.
    @Test func write_transactionsAreClosed() throws {
        let error = try #require(databaseError { try pool.write { db in try db.beginTransaction() } })
        #expect(error.kind == .misuse)
        #expect(try pool.write { db in db.isInTransaction } == false)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try pool.writeInTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                throw Failure()
            }
        }
        #expect(try pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") } == 1)
    }

    /// Checks the async read and write variants.
    @Test func async_readAndWrite() async throws {
        try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try await pool.writeInTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        let count = try await pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") }
        #expect(count == 3)
    }

    /// Checks that after close, reads and writes fail with misuse.
    @Test func close_thenCallsFail() throws {
        _ = try pool.read { db in try db.int64(sql: "SELECT 1") }
        try pool.close()
        #expect(pool.statistics.openReaders == 0)
        #expect(databaseError { try pool.read { _ in } }?.kind == .misuse)
        #expect(databaseError { try pool.write { db in try db.execute(sql: "SELECT 1") } }?.kind == .misuse)
    }
}
