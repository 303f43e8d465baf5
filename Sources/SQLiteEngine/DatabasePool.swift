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

    /// One reader connection's place in the pool; its `state` says who may touch `reader`.
    ///
    /// The readers are checked out and in with one compare-and-swap on their slot, not under a shared lock: with
    /// every request taking a reader, the pool's lock was the most contended one in the process (on Linux a
    /// `Synchronization.Mutex` is a priority-inheritance futex that hands the lock to a sleeping waiter, so threads
    /// queued behind it even when it was free).
    ///
    /// `@unchecked Sendable`: `reader` is written only by the thread that moved `state` to ``busy`` (checking
    /// out, opening) or to ``closed`` from ``idle`` (closing), and published with the releasing store that ends
    /// that ownership; a thread reads it only after taking ownership with an acquiring compare-and-swap.
    final class ReaderSlot: @unchecked Sendable {
        /// Never opened, or its open failed: the first to claim it opens a connection.
        static let empty = 0
        /// Open and free.
        static let idle = 1
        /// Checked out (or being opened) by one read.
        static let busy = 2
        /// Closed with the pool.
        static let closed = 3

        let state = Atomic<Int>(ReaderSlot.empty)
        var reader: ConfinedDatabase?

        /// Moves `state` from `expected` to `desired`; true when this thread did it.
        func claim(_ expected: Int, _ desired: Int) -> Bool {
            state.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent).exchanged
        }
    }

    public let path: String
    public let poolConfiguration: PoolConfiguration
    private let writer: DatabaseQueue
    /// Who may use the writer now: one write call, or one ``WriterLease``.
    private let writerGate = WriterGate()
    /// One slot per reader the pool may open.
    private let slots: [ReaderSlot]
    private let isClosed = Atomic<Bool>(false)
    /// Blocking reads waiting on `readerFreed`.
    private let waiters = Atomic<Int>(0)
    /// Signalled when a reader is checked in while blocking reads wait; only waiters touch it, so a checkout that
    /// finds a reader free costs one compare-and-swap and nothing more.
    private let readerFreed = DispatchSemaphore(value: 0)
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
        self.slots = (0..<max(1, configuration.maximumReaderCount)).map { _ in ReaderSlot() }
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
        try write(waitingUntil: nil, body)
    }

    /// ``write(_:)``, waiting for the writer until `deadline` at most while a ``WriterLease`` holds it (nil: as
    /// long as it takes).
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/writerTimeout`` (`SQLITE_BUSY`) when the writer was not had by
    ///   `deadline`; whatever `body` throws.
    public func write<T>(waitingUntil deadline: ContinuousClock.Instant?, _ body: (Database) throws -> T) throws -> T {
        try withWriterGate(until: deadline) {
            try writer.inDatabase { db in
                try Self.runInAutocommit(db, body)
            }
        }
    }

    /// Takes the writer for a transaction that lives across calls (an interactive transaction): every other write
    /// waits until ``WriterLease/release()``. Waits until `deadline` at most while the writer is in use.
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/writerTimeout`` when the writer was not had by `deadline`.
    public func leaseWriter(waitingUntil deadline: ContinuousClock.Instant?) throws -> WriterLease {
        var waited = false
        guard writerGate.acquire(until: deadline, waited: &waited) else { throw Self.writerTimeout }
        return WriterLease(writer: writer, gate: writerGate, waited: waited)
    }

    /// How many writes (and leases) wait for the writer now.
    public var writerWaitCount: Int {
        writerGate.waitingCount
    }

    private static var writerTimeout: DatabaseError {
        DatabaseError(
            kind: .writerTimeout,
            extendedResultCode: .SQLITE_BUSY,
            message: "the writer is held by an interactive transaction; try again later"
        )
    }

    private func withWriterGate<T>(until deadline: ContinuousClock.Instant?, _ body: () throws -> T) throws -> T {
        // A write from inside a write would wait for itself at the gate: `body` enters the queue and reports it.
        if writer.isCurrentQueue { return try body() }
        guard writerGate.acquire(until: deadline) else { throw Self.writerTimeout }
        defer { writerGate.release() }
        return try body()
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
        try withWriterGate(until: nil) {
            try writer.inTransaction(kind, body)
        }
    }

    /// ``write(_:)`` without blocking the calling task.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // The wait for the gate happens off the cooperative pool.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.write(body) })
            }
        }
    }

    /// ``writeInTransaction(_:_:)`` without blocking the calling task.
    public func writeInTransaction<T: Sendable>(
        _ kind: Database.TransactionKind = .immediate,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.writeInTransaction(kind, body) })
            }
        }
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
        let slot = try checkOutReader()
        defer { checkIn(slot) }
        return try Self.run(on: slot.database, isolation: isolation, body)
    }

    /// Takes a reader connection for a read transaction that lives across calls (``ReaderLease``), waiting for a
    /// free one as ``read(_:)`` does; the reader is back in the pool at ``ReaderLease/release()``.
    ///
    /// - Throws: as ``read(_:)``.
    public func leaseReader() throws -> ReaderLease {
        let slot = try checkOutReader()
        return ReaderLease(database: slot.database) { [self] in checkIn(slot) }
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
        guard let slot = try tryCheckOutReader() else {
            return nil
        }
        defer { checkIn(slot) }
        return try Self.run(on: slot.database, isolation: isolation, body)
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
    ///
    /// A reader being opened counts as open and busy. The figures are read slot by slot, not as one snapshot.
    public var statistics: (openReaders: Int, busyReaders: Int) {
        var open = 0
        var busy = 0
        for slot in slots {
            switch slot.state.load(ordering: .relaxed) {
            case ReaderSlot.idle: open += 1
            case ReaderSlot.busy:
                open += 1
                busy += 1
            default: break
            }
        }
        return (open, busy)
    }

    /// How many blocking reads are waiting for a free reader (for tests).
    var waitingReadCount: Int {
        waiters.load(ordering: .sequentiallyConsistent)
    }

    /// Closes the writer and the idle readers; busy readers close when their read ends. Later calls fail with
    /// ``DatabaseError/Kind-swift.enum/misuse``.
    public func close() throws {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        for slot in slots where slot.claim(ReaderSlot.idle, ReaderSlot.closed) {
            try? slot.reader?.database.close()
            slot.reader = nil
        }
        // Blocked reads fail at once instead of at the end of their wait.
        for _ in 0..<max(0, waiters.load(ordering: .sequentiallyConsistent)) {
            readerFreed.signal()
        }
        try writer.close()
    }

    /// Checks out an idle reader, or opens one in a slot never used; nil when every slot is busy.
    private func tryCheckOutReader() throws -> ReaderSlot? {
        if isClosed.load(ordering: .sequentiallyConsistent) {
            throw DatabaseError.misuse("the database pool is closed")
        }
        // Lower slots first: the readers in use stay few and their statement caches warm.
        for slot in slots where slot.claim(ReaderSlot.idle, ReaderSlot.busy) {
            return slot
        }
        for slot in slots where slot.claim(ReaderSlot.empty, ReaderSlot.busy) {
            do {
                slot.reader = ConfinedDatabase(try Database(path: path, configuration: readerConfiguration))
            } catch {
                slot.state.store(ReaderSlot.empty, ordering: .sequentiallyConsistent)
                wakeWaiter()
                throw error
            }
            return slot
        }
        return nil
    }

    private func checkOutReader() throws -> ReaderSlot {
        if let slot = try tryCheckOutReader() {
            return slot
        }
        // Registered before looking again, so that a check-in either is seen by that look or sees the waiter and
        // signals (both sides use sequentially consistent operations). A signal may be for another waiter, or the
        // reader taken by a tryRead first: look again after every wake until the deadline.
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        let (seconds, attoseconds) = poolConfiguration.readerWaitTimeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds))
        while true {
            if let slot = try tryCheckOutReader() {
                return slot
            }
            if readerFreed.wait(timeout: deadline) == .timedOut {
                if let slot = try tryCheckOutReader() {
                    return slot
                }
                throw DatabaseError(
                    kind: .poolTimeout,
                    extendedResultCode: .SQLITE_BUSY,
                    message: "no database reader became free within \(poolConfiguration.readerWaitTimeout)"
                )
            }
        }
    }

    private func checkIn(_ slot: ReaderSlot) {
        slot.state.store(ReaderSlot.idle, ordering: .sequentiallyConsistent)
        // A reader checked in after close() looked at its slot is closed here (whichever of the two claims it).
        if isClosed.load(ordering: .sequentiallyConsistent), slot.claim(ReaderSlot.idle, ReaderSlot.closed) {
            try? slot.reader?.database.close()
            slot.reader = nil
        }
        wakeWaiter()
    }

    private func wakeWaiter() {
        if waiters.load(ordering: .sequentiallyConsistent) > 0 {
            readerFreed.signal()
        }
    }
}

extension DatabasePool.ReaderSlot {
    /// The checked-out connection; only valid while this thread holds the slot busy.
    var database: Database {
        reader!.database
    }
}
