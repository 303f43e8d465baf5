internal import CSQLite

/// Flags for `sqlite3_open_v2`.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
public struct OpenOptions: OptionSet, Sendable, Hashable {
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let readOnly = OpenOptions(rawValue: SQLITE_OPEN_READONLY)
    public static let readWrite = OpenOptions(rawValue: SQLITE_OPEN_READWRITE)
    public static let create = OpenOptions(rawValue: SQLITE_OPEN_CREATE)
    /// Interpret the path as a `file:` URI.
    public static let uri = OpenOptions(rawValue: SQLITE_OPEN_URI)
    public static let memory = OpenOptions(rawValue: SQLITE_OPEN_MEMORY)
    /// Multi-thread mode: the connection does no locking of its own; it must be confined to one thread at a time,
    /// as ``Database`` is.
    public static let noMutex = OpenOptions(rawValue: SQLITE_OPEN_NOMUTEX)
    public static let fullMutex = OpenOptions(rawValue: SQLITE_OPEN_FULLMUTEX)
    public static let sharedCache = OpenOptions(rawValue: SQLITE_OPEN_SHAREDCACHE)
    public static let privateCache = OpenOptions(rawValue: SQLITE_OPEN_PRIVATECACHE)
    /// Refuse to open a path that is a symbolic link.
    public static let noFollow = OpenOptions(rawValue: SQLITE_OPEN_NOFOLLOW)

    /// Read-write, created when missing, one thread at a time.
    public static let `default`: OpenOptions = [.readWrite, .create, .noMutex]
}
