import Dispatch
import Synchronization

/// A WAL database shared by one writer and several concurrent readers.
///
/// Writes are serialized on a ``DatabaseQueue`` (the single writer connection, forced into WAL mode). Reads run on
/// read-only connections (`SQLITE_OPEN_READONLY` plus `PRAGMA query_only=1`), opened lazily up to
/// ``PoolConfiguration/maximumReaderCount``; each read runs in one deferred transaction, so it sees one consistent
/// snapshot even while the writer commits. When every reader is busy, a read waits up to
/// ``PoolConfiguration/readerWaitTimeout`` and then fails with ``DatabaseError/Kind-swift.enum/poolTimeout``.
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

    private struct State {
        var idleReaders: [ConfinedDatabase] = []
        var openReaders = 0
        var busyReaders = 0
        var isClosed = false
    }

    public let path: String
    public let poolConfiguration: PoolConfiguration
    private let writer: DatabaseQueue
    private let state = Mutex(State())
    /// Counts free reader slots; a read takes one before it takes or opens a reader.
    private let readerSlots: DispatchSemaphore
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
        self.readerSlots = DispatchSemaphore(value: max(1, configuration.maximumReaderCount))
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
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        let db = reader.database
        try db.beginTransaction(.deferred)
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

    /// Closes the writer and the idle readers; busy readers close when their read ends. Later calls fail with
    /// ``DatabaseError/Kind-swift.enum/misuse``.
    public func close() throws {
        let idle = state.withLock { state in
            state.isClosed = true
            let idle = state.idleReaders
            state.idleReaders = []
            state.openReaders -= idle.count
            return idle
        }
        for reader in idle {
            try? reader.database.close()
        }
        try writer.close()
    }

    private func checkOutReader() throws -> ConfinedDatabase {
        if state.withLock({ $0.isClosed }) {
            throw DatabaseError.misuse("the database pool is closed")
        }
        let (seconds, attoseconds) = poolConfiguration.readerWaitTimeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        if readerSlots.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .timedOut {
            throw DatabaseError(
                kind: .poolTimeout,
                extendedResultCode: .SQLITE_BUSY,
                message: "no database reader became free within \(poolConfiguration.readerWaitTimeout)"
            )
        }
        // Holding a slot guarantees an idle reader or room to open one.
        let idle: ConfinedDatabase? = state.withLock { state in
            state.busyReaders += 1
            if let reader = state.idleReaders.popLast() {
                return reader
            }
            state.openReaders += 1
            return nil
        }
        if let idle {
            return idle
        }
        do {
            let database = try Database(path: path, configuration: readerConfiguration)
            return ConfinedDatabase(database)
        } catch {
            state.withLock { state in
                state.busyReaders -= 1
                state.openReaders -= 1
            }
            readerSlots.signal()
            throw error
        }
    }

    private func checkIn(_ reader: ConfinedDatabase) {
        let shouldClose = state.withLock { state in
            state.busyReaders -= 1
            if state.isClosed {
                state.openReaders -= 1
                return true
            }
            state.idleReaders.append(reader)
            return false
        }
        if shouldClose {
            try? reader.database.close()
        }
        readerSlots.signal()
    }
}
