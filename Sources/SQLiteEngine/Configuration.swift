/// How a ``Database`` connection is opened and set up.
///
/// The defaults suit a server that runs untrusted SQL: defensive mode on, schema not trusted, double-quoted string
/// literals off, extension loading off, foreign keys enforced.
public struct Configuration: Sendable {
    public var openOptions: OpenOptions = .default
    /// The name of a registered VFS, or `nil` for the default one.
    public var vfsName: String? = nil
    /// How long a statement waits for a lock held by another connection before failing with `SQLITE_BUSY`.
    public var busyTimeout: Duration = .seconds(5)
    /// Maximum number of statements kept by ``Database/cachedStatement(sql:)``; 0 disables the cache.
    public var statementCacheSize: Int = 64
    /// Journal mode set at open; `nil` keeps the database's own. ``DatabasePool`` forces `.wal`.
    public var journalMode: JournalMode? = nil
    /// `PRAGMA synchronous` set at open; `nil` keeps SQLite's default.
    public var synchronous: SynchronousMode? = nil
    /// `PRAGMA foreign_keys`.
    public var foreignKeys: Bool = true
    /// `SQLITE_DBCONFIG_DEFENSIVE`: SQL cannot corrupt the database file on purpose.
    public var defensive: Bool = true
    /// `SQLITE_DBCONFIG_TRUSTED_SCHEMA`: whether schema objects may call functions not marked innocuous.
    public var trustedSchema: Bool = false
    /// `SQLITE_DBCONFIG_DQS_DML` and `SQLITE_DBCONFIG_DQS_DDL`: whether `"x"` may mean the string `'x'`.
    public var doubleQuotedStringLiterals: Bool = false
    /// `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` (C API only; the SQL function `load_extension` stays off).
    public var extensionLoading: Bool = false
    /// Run-time limits applied with `sqlite3_limit` at open.
    public var limits: [Limit: Int32] = [:]
    /// Runs once for every new connection, after the settings above (to install an authorizer, functions, ...).
    public var prepareDatabase: (@Sendable (Database) throws -> Void)? = nil

    public init() {}
}
