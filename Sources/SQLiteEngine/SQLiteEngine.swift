internal import CSQLite

/// The version of the SQLite library this process is linked against, for example `3.40.1`.
public var sqliteLibraryVersion: String {
    String(cString: sqlite3_libversion())
}
