import Dispatch
import Testing

@testable import SQLiteEngine

/// DatabaseQueue: serialized access to one connection.
@Suite struct DatabaseQueueTests {
    /// Checks that calling the queue from inside itself throws a reentrancy error instead of deadlocking.
    @Test func inDatabase_reentrantCallThrows() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        let error = try #require(
            databaseError {
                try queue.inDatabase { _ in
                    try queue.inDatabase { db in try db.execute(sql: "SELECT 1") }
                }
            }
        )
        #expect(error.kind == .reentrancy)
        #expect(try queue.inDatabase { db in try db.int64(sql: "SELECT 1") } == 1)
    }

    /// Checks that a different queue may be used from inside a queue.
    @Test func inDatabase_otherQueueFromInsideIsFine() throws {
        let first = try DatabaseQueue(path: ":memory:")
        let second = try DatabaseQueue(path: ":memory:")
        let value = try first.inDatabase { _ in
            try second.inDatabase { db in try db.int64(sql: "SELECT 3") }
        }
        #expect(value == 3)
    }

    /// Checks that 16 threads running read-modify-write transactions on one queue lose no update.
    @Test func inTransaction_sixteenThreadsGiveExactCount() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path())
        try queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE counter(n INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO counter VALUES (0)")
        }
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<50 {
                do {
                    try queue.inTransaction(.immediate) { db in
                        let current = try db.int64(sql: "SELECT n FROM counter") ?? 0
                        try db.execute(sql: "UPDATE counter SET n = ?", arguments: [.integer(current + 1)])
                    }
                } catch {
                    failures.increment()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(try queue.inDatabase { db in try db.int64(sql: "SELECT n FROM counter") } == 800)
    }

    /// Checks that inTransaction rolls back on throw and inSavepoint nests.
    @Test func inTransactionAndSavepoint_rollBackOnThrow() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.inDatabase { db in try db.execute(sql: "CREATE TABLE t(x)") }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try queue.inTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        try queue.inSavepoint { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try queue.inDatabase { db in try db.int64(sql: "SELECT sum(x) FROM t") } == 2)
    }

    /// Checks the async variants.
    @Test func async_inDatabaseAndInTransaction() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try await queue.inDatabase { db in try db.execute(sql: "CREATE TABLE t(x)") }
        try await queue.inTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        let count = try await queue.inDatabase { db in try db.int64(sql: "SELECT count(*) FROM t") }
        #expect(count == 1)
    }

    /// Checks that the interrupt handle stops a statement running on the queue.
    @Test func interruptHandle_stopsQueueStatement() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        let running = DispatchSemaphore(value: 0)
        try queue.inDatabase { db in
            try db.createFunction("running", argumentCount: 1, deterministic: false) { arguments in
                if Int64.fromDatabaseValue(arguments[0]) == 1 {
                    running.signal()
                }
                return arguments[0]
            }
        }
        let handle = queue.interruptHandle
        onNewThread {
            running.wait()
            handle.interrupt()
        }
        let error = try #require(
            databaseError {
                try queue.inDatabase { db in
                    try db.withDeadline(.now + .seconds(60)) {
                        _ = try db.scalar(
                            sql:
                                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT running(x) + 1 FROM c) SELECT max(x) FROM c"
                        )
                    }
                }
            }
        )
        #expect(error.kind == .interrupted)
    }

    /// Checks that after close the queue reports the closed connection.
    @Test func close_thenCallsFail() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.close()
        try queue.close()
        let error = try #require(databaseError { try queue.inDatabase { db in try db.execute(sql: "SELECT 1") } })
        #expect(error.kind == .misuse)
    }
}
