import Synchronization

/// A ``DatabasePool``'s writer held across calls, for a transaction that spans them (an interactive transaction):
/// from ``DatabasePool/leaseWriter(waitingUntil:)`` to ``release()`` no other write runs; they wait, each until its
/// own deadline.
///
/// The transaction's statements run through ``run(_:)``, on the writer's serial queue like every write, so the
/// connection is used by one thread at a time whichever threads call it. Unlike ``DatabasePool/write(_:)``, a call
/// may leave a transaction open: that is the point. ``release()`` rolls back whatever is still open.
public final class WriterLease: Sendable {
    private let writer: DatabaseQueue
    private let gate: WriterGate
    private let isReleased = Mutex(false)
    /// Whether the writer was in use when the lease was asked for (the lease waited for it).
    public let waited: Bool

    init(writer: DatabaseQueue, gate: WriterGate, waited: Bool) {
        self.writer = writer
        self.gate = gate
        self.waited = waited
    }

    /// Runs `body` on the writer; a transaction it leaves open stays open for the next call.
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/misuse`` after ``release()``; whatever `body` throws.
    public func run<T>(_ body: (Database) throws -> T) throws -> T {
        // Checked before each call only: the holder of a lease does not call it from two threads at once, so
        // the release cannot come during a call but after it.
        if isReleased.withLock({ $0 }) { throw DatabaseError.misuse("the writer lease was released") }
        return try writer.inDatabase(body)
    }

    /// Interrupts the statement running under the lease, from any thread.
    public var interruptHandle: InterruptHandle {
        writer.interruptHandle
    }

    /// Rolls back any transaction left open and gives the writer back; later calls do nothing.
    public func release() {
        let first = isReleased.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        _ = try? writer.inDatabase { db in
            if db.isInTransaction { try db.rollback() }
        }
        gate.release()
    }

    /// Whether ``release()`` was called.
    public var released: Bool {
        isReleased.withLock { $0 }
    }
}

/// A ``DatabasePool``'s reader held across calls, for a read transaction that spans them (one snapshot):
/// from ``DatabasePool/leaseReader()`` to ``release()`` the reader serves nobody else.
///
/// `@unchecked Sendable`: the reader connection is used only inside ``run(_:)`` and ``release()``, which the
/// holder calls one at a time (an interactive transaction's busy flag, a `Mutex`, orders one call's work before
/// the next's, whichever threads make them).
public final class ReaderLease: @unchecked Sendable {
    private let database: Database
    private let checkIn: @Sendable () -> Void
    private let use = Mutex(false)

    init(database: Database, checkIn: @escaping @Sendable () -> Void) {
        self.database = database
        self.checkIn = checkIn
    }

    /// Runs `body` on the reader; a read transaction it leaves open stays open (its snapshot too).
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/misuse`` after ``release()``; whatever `body` throws.
    public func run<T>(_ body: (Database) throws -> T) throws -> T {
        if use.withLock({ $0 }) { throw DatabaseError.misuse("the reader lease was released") }
        return try body(database)
    }

    /// Ends the read transaction left open and gives the reader back to the pool; later calls do nothing.
    public func release() {
        let first = use.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        if database.isInTransaction { try? database.commit() }
        checkIn()
    }
}
