import Dispatch

/// One database connection used from any thread, one call at a time, on a serial dispatch queue.
///
/// Calls are serialized: each closure runs alone on the queue, so transactions never interleave. Calling back into
/// the same queue from inside one of its closures throws ``DatabaseError/Kind-swift.enum/reentrancy`` instead of
/// deadlocking.
///
/// Related FMDB/GRDB concept: `FMDatabaseQueue`, GRDB `DatabaseQueue`.
public final class DatabaseQueue: Sendable {
    private let queue: DispatchQueue
    private let confined: ConfinedDatabase
    private let queueKey: QueueKey
    /// Interrupts the statement running on this queue, from any thread.
    public let interruptHandle: InterruptHandle

    /// Opens the connection (on the calling thread, before any other thread can see it).
    ///
    /// - Parameters:
    ///   - path: See ``Database/init(path:configuration:)``.
    ///   - configuration: How to open and set up the connection.
    ///   - label: The dispatch queue's label, for debugging.
    public init(path: String, configuration: Configuration = .init(), label: String = "sqlited.database") throws {
        let database = try Database(path: path, configuration: configuration)
        self.confined = ConfinedDatabase(database)
        self.interruptHandle = database.interruptHandle
        self.queue = DispatchQueue(label: label)
        self.queueKey = QueueKey()
        queue.setSpecific(key: queueKey.key, value: ())
    }

    /// Whether the calling code runs on this queue (inside one of its closures).
    var isCurrentQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey.key) != nil
    }

    /// Runs `body` with the connection, on the queue, and waits for it.
    ///
    /// - Throws: ``DatabaseError/Kind-swift.enum/reentrancy`` when called from inside this queue; whatever
    ///   `body` throws.
    public func inDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        if DispatchQueue.getSpecific(key: queueKey.key) != nil {
            throw DatabaseError(
                kind: .reentrancy,
                extendedResultCode: .SQLITE_MISUSE,
                message: "DatabaseQueue was entered again from its own queue; use the Database you were given"
            )
        }
        return try queue.sync {
            try body(confined.database)
        }
    }

    /// Runs `body` in a transaction on the queue: committed when it returns, rolled back when it throws.
    public func inTransaction<T>(
        _ kind: Database.TransactionKind = .deferred,
        _ body: (Database) throws -> T
    ) throws -> T {
        try inDatabase { db in
            try db.transaction(kind, body)
        }
    }

    /// Runs `body` in a savepoint on the queue: released when it returns, rolled back when it throws.
    public func inSavepoint<T>(_ body: (Database) throws -> T) throws -> T {
        try inDatabase { db in
            try db.inSavepoint(body)
        }
    }

    /// Runs `body` with the connection on the queue without blocking the calling task.
    public func inDatabase<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async { [confined] in
                continuation.resume(with: Result { try body(confined.database) })
            }
        }
    }

    /// Runs `body` in a transaction on the queue without blocking the calling task.
    public func inTransaction<T: Sendable>(
        _ kind: Database.TransactionKind = .deferred,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await inDatabase { db in
            try db.transaction(kind, body)
        }
    }

    /// Closes the connection (on the queue); later calls get the "connection is closed" misuse error.
    public func close() throws {
        try inDatabase { db in
            try db.close()
        }
    }
}

/// A `Database` that crosses threads but is used by one thread at a time.
///
/// `@unchecked Sendable`: in a `DatabaseQueue` the database is only touched inside closures run on the owning serial
/// queue (or during `init`, before the queue is shared); in a `DatabasePool` a reader is used only by the thread that
/// checked it out, and the check-out and check-in go through the pool's `Mutex`, so it is never used by two
/// threads at once.
final class ConfinedDatabase: @unchecked Sendable {
    let database: Database

    init(_ database: Database) {
        self.database = database
    }
}

/// The dispatch-specific key marking a queue.
///
/// `@unchecked Sendable`: `DispatchSpecificKey` is an immutable token; `getSpecific`/`setSpecific` are thread-safe.
final class QueueKey: @unchecked Sendable {
    let key = DispatchSpecificKey<Void>()
}
