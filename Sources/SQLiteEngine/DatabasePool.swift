import Dispatch
import Synchronization

/// A WAL database shared by one writer and several concurrent readers.
///
/// Writes are serialized on a ``DatabaseQueue`` (the single writer connection, forced into WAL mode). Reads run on
/// read-only connections (`SQLITE_OPEN_READONLY` plus `PRAGMA query_only=1`), opened lazily up to
/// ``PoolConfiguration/maximumReaderCount``; each read runs in one deferred transaction, so it sees one consistent
/// snapshot even while the writer commits. When every reader is busy, a read waits up to
/// ``PoolConfiguration/readerWaitTimeout`` and then fails with ``DatabaseError/Kind-swift.enum/poolTimeout``;
/// ``tryRead(isolation:_:)`` does not wait at all.
///
/// Related SQLite documentation: <https://www.sqlite.org/wal.html>
public final class DatabasePool: Sendable {
    /// The pool's settings.
    public struct PoolConfiguration: Sendable {
        /// Maximum number of reader connections open at once (at least 1).
        public var maximumReaderCount = 4
        /// How long a read waits for a free reader.
        public var readerWaitTimeout: Duration = .seconds(5)
        /// Settings of every connection (readers ignore `journalMode` and `synchronous`, and always open read-only).
        public var configuration: Configuration

        public init(
            maximumReaderCount: Int = 4,
            readerWaitTimeout: Duration = .seconds(5),
            configuration: Configuration = .init()
        ) {
            self.maximumReaderCount = maximumReaderCount
            self.readerWaitTimeout = readerWaitTimeout
            self.configuration = configuration
        }
    }

    /// How a read delimits the snapshot its statements see.
    public enum ReadIsolation: Sendable {
        /// One deferred transaction around the whole read: every statement sees the same snapshot.
        case snapshot
        /// No explicit transaction: each statement is its own read transaction, with a snapshot of its own.
        ///
        /// For a read that runs a single statement this is equivalent to ``snapshot`` (SQLite starts a read
        /// transaction when the statement first steps and ends it when the statement is reset: one statement, one
        /// snapshot), and it saves the `BEGIN` and `COMMIT` round trips. Use ``snapshot`` whenever a read runs
        /// more than one statement.
        ///
        /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
        case statement
    }

    private struct State {
        var idleReaders: [ConfinedDatabase] = []
        var openReaders = 0
        var busyReaders = 0
        /// Blocking reads waiting on `readerFreed`.
        var waiters = 0
        var isClosed = false
    }

    public let path: String
    public let poolConfiguration: PoolConfiguration
    private let writer: DatabaseQueue
    private let state = Mutex(State())
    /// Signalled when a reader is checked in while blocking reads wait; only waiters touch it, so a checkout that
    /// finds a reader free costs one lock round trip and nothing more.
    private let readerFreed = DispatchSemaphore(value: 0)
    private let maximumReaderCount: Int
    private let readerConfiguration: Configuration

    /// Opens the writer (in WAL mode); readers open on first use.
    ///
    /// - Throws: ``DatabaseError``; ``DatabaseError/Kind-swift.enum/misuse`` when the database cannot use WAL
    ///   (an in-memory or temporary database).
    public init(path: String, configuration: PoolConfiguration = .init(configuration: .init())) throws {
        self.path = path
        self.poolConfiguration = configuration
        var writerConfiguration = configuration.configuration
        writerConfiguration.journalMode = .wal
        self.writer = try DatabaseQueue(path: path, configuration: writerConfiguration, label: "sqlited.pool.writer")
        let mode = try writer.inDatabase { db in try db.journalMode }
        guard mode == .wal else {
            try? writer.close()
            throw DatabaseError.misuse("DatabasePool needs a database file that supports WAL (journal mode is \(mode))")
        }
        var readerConfiguration = configuration.configuration
        var options = readerConfiguration.openOptions
        options.remove([.readWrite, .create])
        options.insert(.readOnly)
        readerConfiguration.openOptions = options
        readerConfiguration.journalMode = nil
        readerConfiguration.synchronous = nil
        // query_only is set before the caller's prepareDatabase, which may install an authorizer that refuses
        // to let SQL change pragmas.
        let userPrepare = readerConfiguration.prepareDatabase
        readerConfiguration.prepareDatabase = { database in
            try database.execute(sql: "PRAGMA query_only = 1")
            try userPrepare?(database)
        }
        self.readerConfiguration = readerConfiguration
        self.maximumReaderCount = max(1, configuration.maximumReaderCount)
    }

    /// Interrupts the writer's running statement, from any thread.
    public var writerInterruptHandle: InterruptHandle {
        writer.interruptHandle
    }

    // MARK: - Writing

    /// Runs `body` on the writer, serialized with every other write, in autocommit mode.
    ///
    /// `body` may open and end transactions itself, but must not leave one open: it would hold the write lock for
    /// every later write. When it does, the transaction is rolled back and ``DatabaseError/Kind-swift.enum/misuse``
    /// thrown.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.inDatabase { db in
            try Self.runInAutocommit(db, body)
        }
    }

    /// Runs `body`; when it throws, rolls back whatever transaction it left open, then rethrows.
    private static func rollingBackOnError<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        do {
            return try body(db)
        } catch {
            if db.isInTransaction {
                try? db.rollback()
            }
            throw error
        }
    }

    private static func runInAutocommit<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        let result = try rollingBackOnError(db, body)
        if db.isInTransaction {
            try? db.rollback()
            throw DatabaseError.misuse("a write left a transaction open; it was rolled back")
        }
        return result
    }

    /// Runs `body` on the writer in one transaction (immediate by default, so it never fails with
    /// `SQLITE_BUSY_SNAPSHOT`): committed when it returns, rolled back when it throws.
    public func writeInTransaction<T>(
        _ kind: Database.TransactionKind = .immediate,
        _ body: (Database) throws -> T
    ) throws -> T {
        try writer.inTransaction(kind, body)
    }

    /// ``write(_:)`` without blocking the calling task.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.inDatabase { db in
            try Self.runInAutocommit(db, body)
        }
    }

    /// ``writeInTransaction(_:_:)`` without blocking the calling task.
    public func writeInTransaction<T: Sendable>(
        _ kind: Database.TransactionKind = .immediate,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await writer.inTransaction(kind, body)
    }

    // MARK: - Reading

    /// Runs `body` on a reader connection, inside one deferred transaction (one consistent snapshot).
    ///
    /// The snapshot is taken by the first statement that reads; every later statement of `body` sees the database
    /// as it was then, whatever the writer commits meanwhile. Keep reads short: an open snapshot stops checkpoints
    /// from resetting the WAL.
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/poolTimeout`` when no reader becomes free within
    ///   ``PoolConfiguration/readerWaitTimeout``; `SQLITE_READONLY` errors for statements that write; whatever
    ///   `body` throws.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try read(isolation: .snapshot, body)
    }

    /// Runs `body` on a reader connection, in one transaction or one per statement as `isolation` says.
    ///
    /// - Throws: as ``read(_:)``.
    public func read<T>(isolation: ReadIsolation, _ body: (Database) throws -> T) throws -> T {
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try Self.run(on: reader.database, isolation: isolation, body)
    }

    /// Runs `body` on a reader connection if one is free now, without waiting; nil when every reader is busy and
    /// no more may be opened.
    ///
    /// Opens a new reader when fewer than ``PoolConfiguration/maximumReaderCount`` are open. Meant for callers that
    /// must not block (an event loop), which then fall back to ``read(_:)`` elsewhere.
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/misuse`` when the pool is closed; an error opening the reader;
    ///   `SQLITE_READONLY` errors for statements that write; whatever `body` throws.
    public func tryRead<T>(isolation: ReadIsolation = .snapshot, _ body: (Database) throws -> T) throws -> T? {
        guard let reader = try tryCheckOutReader() else {
            return nil
        }
        defer { checkIn(reader) }
        return try Self.run(on: reader.database, isolation: isolation, body)
    }

    private static func run<T>(on db: Database, isolation: ReadIsolation, _ body: (Database) throws -> T) throws -> T {
        if isolation == .snapshot {
            try db.beginTransaction(.deferred)
        }
        let result = try Self.rollingBackOnError(db, body)
        if db.isInTransaction {
            // Ends the read transaction and releases its snapshot; a reader has nothing to commit.
            try db.commit()
        }
        return result
    }

    /// ``read(_:)`` without blocking the calling task (the wait for a reader happens off the cooperative pool).
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.read(body) })
            }
        }
    }

    /// Reader connections open, and how many of them are running a read.
    public var statistics: (openReaders: Int, busyReaders: Int) {
        state.withLock { ($0.openReaders, $0.busyReaders) }
    }

    /// How many blocking reads are waiting for a free reader (for tests).
    var waitingReadCount: Int {
        state.withLock { $0.waiters }
    }

    /// Closes the writer and the idle readers; busy readers close when their read ends. Later calls fail with
    /// ``DatabaseError/Kind-swift.enum/misuse``.
    public func close() throws {
        let (idle, waiters) = state.withLock { state in
            state.isClosed = true
            let idle = state.idleReaders
            state.idleReaders = []
            state.openReaders -= idle.count
            return (idle, state.waiters)
        }
        for reader in idle {
            try? reader.database.close()
        }
        // Blocked reads fail at once instead of at the end of their wait.
        for _ in 0..<waiters {
            readerFreed.signal()
        }
        try writer.close()
    }

    /// Takes an idle reader, or the right to open one; nil when neither is available now.
    private enum Checkout {
        case idle(ConfinedDatabase)
        case open
    }

    /// Reserves a reader under the lock, or registers the caller as a waiter when `wait` is true and none is free.
    private func reserveReader(registeringWaiter wait: Bool) throws(DatabaseError) -> Checkout? {
        try state.withLock { state throws(DatabaseError) -> Checkout? in
            if state.isClosed {
                throw DatabaseError.misuse("the database pool is closed")
            }
            if let reader = state.idleReaders.popLast() {
                state.busyReaders += 1
                return .idle(reader)
            }
            if state.openReaders < maximumReaderCount {
                state.openReaders += 1
                state.busyReaders += 1
                return .open
            }
            if wait {
                state.waiters += 1
            }
            return nil
        }
    }

    private func tryCheckOutReader() throws -> ConfinedDatabase? {
        guard let checkout = try reserveReader(registeringWaiter: false) else {
            return nil
        }
        return try complete(checkout)
    }

    private func checkOutReader() throws -> ConfinedDatabase {
        if let checkout = try reserveReader(registeringWaiter: true) {
            return try complete(checkout)
        }
        // Registered as a waiter: every check-in signals once per waiter, and the reader may be taken by someone
        // else (a tryRead) before this thread wakes, so look again after each wake until the deadline.
        let (seconds, attoseconds) = poolConfiguration.readerWaitTimeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds))
        while true {
            let timedOut = readerFreed.wait(timeout: deadline) == .timedOut
            let checkout = try state.withLock { state throws(DatabaseError) -> Checkout? in
                if state.isClosed {
                    state.waiters -= 1
                    throw DatabaseError.misuse("the database pool is closed")
                }
                let checkout: Checkout?
                if let reader = state.idleReaders.popLast() {
                    checkout = .idle(reader)
                } else if state.openReaders < maximumReaderCount {
                    state.openReaders += 1
                    checkout = .open
                } else {
                    checkout = nil
                }
                if checkout != nil {
                    state.busyReaders += 1
                    state.waiters -= 1
                } else if timedOut {
                    state.waiters -= 1
                }
                return checkout
            }
            if let checkout {
                return try complete(checkout)
            }
            if timedOut {
                throw DatabaseError(
                    kind: .poolTimeout,
                    extendedResultCode: .SQLITE_BUSY,
                    message: "no database reader became free within \(poolConfiguration.readerWaitTimeout)"
                )
            }
        }
    }

    /// Opens the reader a checkout reserved room for, or returns the idle one it took.
    private func complete(_ checkout: Checkout) throws -> ConfinedDatabase {
        switch checkout {
        case .idle(let reader):
            return reader
        case .open:
            do {
                return ConfinedDatabase(try Database(path: path, configuration: readerConfiguration))
            } catch {
                let wakeWaiter = state.withLock { state in
                    state.busyReaders -= 1
                    state.openReaders -= 1
                    return state.waiters > 0
                }
                if wakeWaiter {
                    readerFreed.signal()
                }
                throw error
            }
        }
    }

    private func checkIn(_ reader: ConfinedDatabase) {
        let (shouldClose, wakeWaiter) = state.withLock { state in
            state.busyReaders -= 1
            if state.isClosed {
                state.openReaders -= 1
                return (true, state.waiters > 0)
            }
            state.idleReaders.append(reader)
            return (false, state.waiters > 0)
        }
        if shouldClose {
            try? reader.database.close()
        }
        if wakeWaiter {
            readerFreed.signal()
        }
    }
}
