internal import CSQLite

/// One connection to an SQLite database.
///
/// A `Database` is not `Sendable`: SQLite connections are opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`), so a
/// connection must be used by one thread at a time. Share it through a ``DatabaseQueue`` or a ``DatabasePool``;
/// only ``interruptHandle`` may be used from other threads.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/sqlite3.html>
public final class Database {
    /// The path given at creation: a file path, `":memory:"`, `""` (a temporary database deleted on close) or a
    /// `file:` URI (with ``OpenOptions/uri``).
    public let path: String
    public let configuration: Configuration

    // A Database is used by one thread at a time and these two are never accessed while a mutation of them is in
    // progress (no callback reaches them), so the runtime's dynamic exclusivity check of every access (about 80
    // instructions, several per request) is dropped for them.
    /// The open connection, or `nil` when closed.
    @exclusivity(unchecked) var connection: Connection?
    @exclusivity(unchecked) var statementCache: StatementCache
    var savepointDepth = 0
    /// The savepoint statements of the names used lately, prepared once each.
    var savepointStatements = SavepointStatements()
    var authorizer: AuthorizerBox?
    /// The record tables looked up so far, valid for one schema version (``recordTable(named:)``).
    var recordTableCache = RecordTableCache()
    /// ``schemaMayFailPartWay``'s statement and last answer.
    var failResolutionCache = FailResolutionCache()
    private var currentBusyTimeout: Duration
    /// `currentBusyTimeout` as SQLite takes it, converted once.
    private var busyTimeoutMilliseconds: Int32 = 0

    /// Interrupts this connection's running statement from any thread; stays valid across close and reopen.
    public let interruptHandle = InterruptHandle()
    /// Whether this object opened the `sqlite3*` and closes it: false for a connection other code opened, seen
    /// through ``AutoExtension`` (see ``init(borrowing:)``).
    let ownsConnection: Bool

    /// Opens a connection.
    ///
    /// - Parameters:
    ///   - path: A file path (created when missing, with the default options), `":memory:"`, or `""` for a private
    ///     temporary database that SQLite deletes on close.
    ///   - configuration: How to open and set up the connection.
    /// - Throws: ``DatabaseError`` when the file cannot be opened or set up.
    public init(path: String, configuration: Configuration = .init()) throws {
        self.path = path
        self.configuration = configuration
        self.statementCache = StatementCache(capacity: configuration.statementCacheSize)
        self.currentBusyTimeout = configuration.busyTimeout
        self.ownsConnection = true
        try open()
    }

    /// Wraps a connection that other code opened and will close (a C library's, seen by ``AutoExtension``).
    ///
    /// The object only installs things on it: it applies no configuration, keeps no statement cache, and never
    /// closes the handle (``close()`` only stops using it; ``open()`` cannot reopen it). Hooks installed through
    /// it (an authorizer) live as long as this object, so whoever installs them must keep it alive until the
    /// connection closes; functions are released by SQLite itself when it closes.
    init(borrowing handle: OpaquePointer) {
        self.path = sqlite3_db_filename(handle, "main").map { String(cString: $0) } ?? ""
        var configuration = Configuration()
        configuration.statementCacheSize = 0
        self.configuration = configuration
        self.statementCache = StatementCache(capacity: 0)
        self.currentBusyTimeout = configuration.busyTimeout
        self.ownsConnection = false
        self.connection = Connection(handle: handle)
    }

    deinit {
        if ownsConnection {
            try? close()
        }
    }

    /// Whether the connection is open.
    public var isOpen: Bool {
        connection != nil
    }

    /// Whether the main database is open read-only (a ``DatabasePool`` reader, or ``OpenOptions/readOnly``);
    /// false when closed.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/db_readonly.html>
    public var isReadOnly: Bool {
        guard let handle = connection?.handle else { return false }
        return sqlite3_db_readonly(handle, "main") == 1
    }

    /// Opens the connection again after ``close()`` or a failed open; does nothing when it is already open.
    ///
    /// Every open runs the whole set-up again (configuration, then `prepareDatabase`). When set-up fails, the
    /// connection is closed again and the error thrown, so that `open()` may simply be retried.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
    public func open() throws {
        if connection != nil {
            return
        }
        guard ownsConnection else {
            throw DatabaseError.databaseClosed
        }
        var handle: OpaquePointer?
        // Extended result codes are always on: DatabaseError needs them, and the flag makes even the open's error
        // extended.
        let flags = configuration.openOptions.rawValue | SQLITE_OPEN_EXRESCODE
        let code: Int32
        if let vfsName = configuration.vfsName {
            code = sqlite3_open_v2(path, &handle, flags, vfsName)
        } else {
            code = sqlite3_open_v2(path, &handle, flags, nil)
        }
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw DatabaseError(kind: .sqlite, extendedResultCode: ResultCode(rawValue: code), message: message)
        }
        let connection = Connection(handle: handle)
        self.connection = connection
        interruptHandle.attach(handle)
        do {
            try setUp(connection, handle)
        } catch {
            try? close()
            throw error
        }
    }

    private func setUp(_ connection: Connection, _ handle: OpaquePointer) throws {
        sqlite3_extended_result_codes(handle, 1)
        try applyConnectionOptions(configuration)
        applyBusyTimeout(currentBusyTimeout)
        try execute(sql: configuration.foreignKeys ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF")
        if let journalMode = configuration.journalMode {
            _ = try setJournalMode(journalMode)
        }
        if let synchronous = configuration.synchronous {
            try execute(sql: "PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        }
        try configuration.prepareDatabase?(self)
        // Statements of the set-up should neither occupy the cache nor count in its statistics.
        statementCache = StatementCache(capacity: configuration.statementCacheSize)
    }

    /// Applies the settings of `configuration` that run no statement: defensive mode, trusted schema, double-quoted
    /// string literals, extension loading (C API and SQL function) and the limits.
    ///
    /// ``init(path:configuration:)`` applies them at open; this is for a connection other code opened
    /// (``AutoExtension``), whose own configuration is not applied.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html>
    public func applyConnectionOptions(_ configuration: Configuration) throws {
        let (connection, handle) = try openConnection()
        try setDatabaseConfig(handle, SQLITE_DBCONFIG_DEFENSIVE, configuration.defensive)
        try setDatabaseConfig(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, configuration.trustedSchema)
        try setDatabaseConfig(handle, SQLITE_DBCONFIG_DQS_DML, configuration.doubleQuotedStringLiterals)
        try setDatabaseConfig(handle, SQLITE_DBCONFIG_DQS_DDL, configuration.doubleQuotedStringLiterals)
        try setDatabaseConfig(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, configuration.extensionLoading)
        try connection.check(sqlite3_enable_load_extension(handle, configuration.extensionLoading ? 1 : 0))
        for (limit, value) in configuration.limits {
            sqlite3_limit(handle, limit.sqliteValue, value)
        }
    }

    private func setDatabaseConfig(_ handle: OpaquePointer, _ option: Int32, _ enabled: Bool) throws {
        var current: Int32 = 0
        let code = csqlite_db_config_int(handle, option, enabled ? 1 : 0, &current)
        try connection?.check(code)
    }

    /// Closes the connection: finalizes every statement (cached, held by cursors, or leaked), then closes.
    ///
    /// Statements and cursors of this connection fail with ``DatabaseError/Kind-swift.enum/misuse`` afterwards.
    /// Closing a closed database does nothing.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/close.html>
    public func close() throws {
        guard ownsConnection else {
            // Not ours to close: stop using it. Its owner closes it, and the authorizer stays installed until then.
            connection = nil
            return
        }
        guard let connection, let handle = connection.handle else {
            self.connection = nil
            return
        }
        // Cut the interrupt handle off first so that no sqlite3_interrupt can race with sqlite3_close.
        interruptHandle.detach()
        statementCache.removeAll()
        savepointStatements.removeAll()
        failResolutionCache = FailResolutionCache()
        // Statements still referenced elsewhere (cursors, leaked Statement objects) are finalized here; their
        // `connection.handle` becomes nil below, so they never touch the closed handle again. Only the engine's own:
        // virtual table modules finalize theirs while the connection closes.
        for statement in connection.liveStatements {
            sqlite3_finalize(statement)
        }
        connection.liveStatements.removeAll()
        let code = sqlite3_close_v2(handle)
        connection.handle = nil
        self.connection = nil
        authorizer = nil
        savepointDepth = 0
        if code != SQLITE_OK {
            throw DatabaseError(
                kind: .sqlite,
                extendedResultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errstr(code))
            )
        }
    }

    /// The open connection and its handle, or the "closed" misuse error.
    func openConnection() throws(DatabaseError) -> (Connection, OpaquePointer) {
        guard let connection, let handle = connection.handle else {
            throw .databaseClosed
        }
        return (connection, handle)
    }

    // MARK: - Changes

    /// The rowid of the most recent successful INSERT on this connection (`sqlite3_last_insert_rowid`).
    ///
    /// It is per connection and goes stale: a later UPDATE leaves it unchanged. Prefer
    /// ``Statement/insertedRowID``.
    public var lastInsertRowID: Int64 {
        guard let handle = connection?.handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// Rows inserted, updated or deleted by the last statement run through this database.
    ///
    /// Unlike `sqlite3_changes`, this is 0 after DDL or a SELECT: it is the difference of `sqlite3_total_changes64`
    /// around the statement.
    public var changes: Int {
        connection?.lastChanges ?? 0
    }

    /// Rows inserted, updated or deleted since the connection opened (`sqlite3_total_changes64`).
    public var totalChanges: Int {
        guard let handle = connection?.handle else { return 0 }
        return Int(sqlite3_total_changes64(handle))
    }

    // MARK: - Busy timeout

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/busy_timeout.html>
    public var busyTimeout: Duration {
        get { currentBusyTimeout }
        set {
            currentBusyTimeout = newValue
            applyBusyTimeout(newValue)
        }
    }

    private func applyBusyTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        busyTimeoutMilliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        guard let handle = connection?.handle else { return }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    /// Runs `body` with SQLite's busy handler off — a statement that meets a lock fails with `SQLITE_BUSY` at once
    /// instead of waiting — then sets the busy timeout back (without converting it again: this runs per request
    /// on a server's event loop).
    public func withoutBusyWait<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        // The busy timeout restored afterwards is this object's own; a borrowed connection's, set by the code that
        // opened it, cannot be read back from SQLite, and would be lost.
        precondition(ownsConnection, "withoutBusyWait on a borrowed connection would lose its opener's busy timeout")
        guard let handle = connection?.handle else { return try body() }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return try body()
    }

    // MARK: - Interrupt and deadline

    /// Stops the running statement with `SQLITE_INTERRUPT`. Use ``interruptHandle`` from other threads.
    public func interrupt() {
        interruptHandle.interrupt()
    }

    /// Runs `body`, aborting any statement still running at `deadline`.
    ///
    /// A progress handler checks the clock every 1000 virtual machine instructions; a statement past the deadline
    /// fails with ``DatabaseError/Kind-swift.enum/timeout`` (result code `SQLITE_INTERRUPT`). The connection stays
    /// usable. A transaction open when the statement was aborted may have been rolled back by SQLite
    /// (``isInTransaction`` tells); ending it is left to the caller. Deadlines nest: the earliest wins.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/progress_handler.html>
    public func withDeadline<T>(_ deadline: ContinuousClock.Instant, _ body: () throws -> T) throws -> T {
        let (connection, handle) = try openConnection()
        let previous = connection.deadline
        connection.deadline = previous.map { min($0, deadline) } ?? deadline
        if previous == nil {
            connection.deadlineExpired = false
            sqlite3_progress_handler(
                handle,
                1000,
                { context in
                    Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue().progressTick()
                },
                Unmanaged.passUnretained(connection).toOpaque()
            )
        }
        defer {
            connection.deadline = previous
            if previous == nil {
                connection.deadlineExpired = false
                if let handle = connection.handle {
                    sqlite3_progress_handler(handle, 0, nil, nil)
                }
            }
        }
        return try body()
    }
}

@available(*, unavailable, message: "A Database is confined to one thread at a time; use DatabaseQueue or DatabasePool")
extension Database: Sendable {}
