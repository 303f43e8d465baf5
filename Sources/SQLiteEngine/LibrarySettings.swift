internal import CSQLite

/// Settings of the SQLite library itself, for the whole process: a program applies them once, before it opens any
/// database (SQLite takes them only before it initializes).
public enum LibrarySettings {
    /// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`), which take a process-wide mutex around
    /// every allocation and free the library makes (a point query makes about six). SQLite's recommended
    /// compile-time options turn them off the same way (`SQLITE_DEFAULT_MEMSTATUS=0`); they only feed
    /// `sqlite3_memory_used()` and the soft heap limit, which this package does not use.
    ///
    /// - Returns: false when the library was initialized already (a database was opened first), and nothing changed.
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool {
        csqlite_config_memstatus(0) == SQLITE_OK
    }
}
