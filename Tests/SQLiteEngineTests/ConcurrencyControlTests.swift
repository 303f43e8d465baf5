import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// WAL, checkpoints, busy handling, interrupts and deadlines.
@Suite struct ConcurrencyControlTests {
    /// An endless query; only an interrupt or a deadline stops it.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c"

    /// Checks switching to WAL and back, and that an in-memory database reports the mode it kept.
    @Test func setJournalMode_switchesModes() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path())
        #expect(try db.setJournalMode(.wal) == .wal)
        #expect(try db.journalMode == .wal)
        #expect(try db.setJournalMode(.delete) == .delete)
        let memory = try makeMemoryDatabase()
        #expect(try memory.setJournalMode(.wal) == .memory)
    }

    /// Checks that the journal mode in the configuration is applied at open.
    @Test func configuration_appliesJournalMode() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.journalMode = .wal
        let db = try Database(path: directory.path(), configuration: configuration)
        #expect(try db.journalMode == .wal)
    }

    /// Checks every checkpoint mode and the frame counts it returns.
    @Test func checkpoint_returnsFrameCounts() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path())
        _ = try db.setJournalMode(.wal)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (randomblob(10000))")
        let passive = try db.checkpoint(.passive)
        #expect(passive.walFrames > 0)
        #expect(passive.checkpointedFrames == passive.walFrames)
        for mode in [CheckpointMode.full, .restart] {
            try db.execute(sql: "INSERT INTO t VALUES (randomblob(10000))")
            let result = try db.checkpoint(mode)
            #expect(result.walFrames > 0)
            #expect(result.checkpointedFrames == result.walFrames)
        }
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        let truncated = try db.checkpoint(.truncate)
        #expect(truncated.walFrames == 0)
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.path() + "-wal")[.size] as? Int
        #expect(walSize == 0)
    }

    /// Checks that a second writer gets SQLITE_BUSY with busy timeout 0, and succeeds after the first commits.
    @Test func busy_secondWriterFailsThenSucceeds() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.busyTimeout = .zero
        let first = try Database(path: directory.path(), configuration: configuration)
        let second = try Database(path: directory.path(), configuration: configuration)
        #expect(second.busyTimeout == .zero)
        try first.execute(sql: "CREATE TABLE t(x)")
        try first.beginTransaction(.immediate)
        try first.execute(sql: "INSERT INTO t VALUES (1)")
        let error = try #require(databaseError { try second.beginTransaction(.immediate) })
        #expect(error.resultCode == .SQLITE_BUSY)
        #expect(second.isInTransaction == false)
        try first.commit()
        try second.beginTransaction(.immediate)
        try second.execute(sql: "INSERT INTO t VALUES (2)")
        try second.commit()
        #expect(try first.int64(sql: "SELECT count(*) FROM t") == 2)
    }

    /// Checks that `withoutBusyWait` makes a locked database fail at once with a long busy timeout configured (a
    /// wait would outlast the suite's time limit), leaves the timeout as it was, and that the waiting works again
    /// afterwards.
    @Test(.timeLimit(.minutes(1))) func withoutBusyWait_failsAtOnceThenRestores() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.busyTimeout = .seconds(120)
        let first = try Database(path: directory.path(), configuration: configuration)
        let second = try Database(path: directory.path(), configuration: configuration)
        try first.execute(sql: "CREATE TABLE t(x)")
        try first.beginTransaction(.immediate)
        let error = try #require(
            databaseError { try second.withoutBusyWait { try second.beginTransaction(.immediate) } }
        )
        #expect(error.resultCode == .SQLITE_BUSY)
        // Restored: outside the call, `second` waits for the lock again. `first` releases it from another thread
        // a moment after `second` has started waiting; without the busy handler back, `second` would fail at once.
        let holder = Holder(first)
        let released = DispatchSemaphore(value: 0)
        Thread {
            Thread.sleep(forTimeInterval: 0.3)
            try? holder.database.commit()
            released.signal()
        }.start()
        try second.beginTransaction(.immediate)
        try second.execute(sql: "INSERT INTO t VALUES (1)")
        try second.commit()
        released.wait()
        #expect(try first.int64(sql: "SELECT count(*) FROM t") == 1)
    }

    /// Hands a connection to the one other thread that uses it while this one does not.
    private final class Holder: @unchecked Sendable {
        let database: Database
        init(_ database: Database) { self.database = database }
    }

    /// Checks that the busy timeout lets a writer wait for another connection's commit.
    @Test func busy_timeoutWaitsForOtherCommit() throws {
        let directory = try TemporaryDirectory()
        let first = try Database(path: directory.path())
        try first.execute(sql: "CREATE TABLE t(x)")
        try first.beginTransaction(.immediate)
        let committed = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let path = directory.path()
        let result = Mutex<Result<Int64, any Error>?>(nil)
        let thread = Thread {
            do {
                var configuration = Configuration()
                configuration.busyTimeout = .seconds(30)
                let second = try Database(path: path, configuration: configuration)
                started.signal()
                try second.execute(sql: "INSERT INTO t VALUES (2)")
                let count = try second.int64(sql: "SELECT count(*) FROM t") ?? -1
                result.withLock { $0 = .success(count) }
            } catch {
                started.signal()
                result.withLock { $0 = .failure(error) }
            }
            committed.signal()
        }
        thread.start()
        started.wait()
        try first.execute(sql: "INSERT INTO t VALUES (1)")
        try first.commit()
        committed.wait()
        let count = try result.withLock { try $0?.get() }
        #expect(count == 2)
    }

    /// Checks that interrupt() from another thread stops a running statement with kind .interrupted.
    @Test func interrupt_fromAnotherThreadStopsStatement() throws {
        let db = try makeMemoryDatabase()
        let running = DispatchSemaphore(value: 0)
        let signalled = Mutex(false)
        try db.createFunction("running", argumentCount: 1, deterministic: false) { arguments in
            if !signalled.withLock({
                let was = $0
                $0 = true
                return was
            }) {
                running.signal()
            }
            return arguments[0]
        }
        let handle = db.interruptHandle
        onNewThread {
            running.wait()
            handle.interrupt()
        }
        // The deadline only guards against a hang if the interrupt were lost; it must not be what stops it.
        let error = try #require(
            databaseError {
                try db.withDeadline(.now + .seconds(60)) {
                    _ = try db.scalar(
                        sql:
                            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT running(x) + 1 FROM c) SELECT max(x) FROM c"
                    )
                }
            }
        )
        #expect(error.kind == .interrupted)
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(try db.int64(sql: "SELECT 1") == 1)
    }

    /// Checks that a deadline aborts an endless recursive CTE with .timeout and the connection works afterwards.
    @Test func withDeadline_abortsEndlessQueryWithTimeout() throws {
        let db = try makeMemoryDatabase()
        let error = try #require(
            databaseError {
                try db.withDeadline(.now + .milliseconds(50)) {
                    _ = try db.scalar(sql: Self.endless)
                }
            }
        )
        #expect(error.kind == .timeout)
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.sql == Self.endless)
        #expect(try db.int64(sql: "SELECT 1") == 1)
        // Outside the deadline nothing is interrupted any more.
        let counted = try db.int64(
            sql:
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c"
        )
        #expect(counted == 100_000)
    }

    /// Checks that a deadline that aborts a write inside a transaction leaves isInTransaction truthful.
    @Test func withDeadline_abortedWriteRollsBackTransactionTruthfully() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.beginTransaction()
        try db.execute(sql: "INSERT INTO t VALUES (0)")
        let error = try #require(
            databaseError {
                try db.withDeadline(.now + .milliseconds(50)) {
                    try db.execute(
                        sql:
                            "INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
                    )
                }
            }
        )
        #expect(error.kind == .timeout)
        // SQLite rolls back the whole transaction when an INSERT inside it is interrupted.
        #expect(db.isInTransaction == false)
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 0)
    }

    /// Checks that nested deadlines use the earliest and that a passed deadline still lets quick work finish.
    @Test func withDeadline_nests() throws {
        let db = try makeMemoryDatabase()
        let value = try db.withDeadline(.now + .seconds(60)) {
            let error = databaseError {
                try db.withDeadline(.now + .milliseconds(20)) {
                    _ = try db.scalar(sql: Self.endless)
                }
            }
            #expect(error?.kind == .timeout)
            return try db.int64(sql: "SELECT 7")
        }
        #expect(value == 7)
    }
}
