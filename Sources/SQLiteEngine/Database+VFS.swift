internal import CSQLite

extension Database {
    /// The name of the VFS the main database was opened with (`"unix"` by default), or `nil` when closed.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_fcntl_begin_atomic_write.html> (`SQLITE_FCNTL_VFS_POINTER`)
    public var vfsName: String? {
        guard let handle = connection?.handle else { return nil }
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK,
            let name = vfs?.pointee.zName
        else {
            return nil
        }
        return String(cString: name)
    }
}
