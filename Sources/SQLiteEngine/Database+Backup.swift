internal import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// Online backup of this connection's main database into a new file at `destinationPath`.
    ///
    /// The copy is made with SQLite's online backup API in one `sqlite3_backup_step(-1)`, so it is one consistent
    /// snapshot: in WAL mode, other connections keep reading and writing while it runs (a writer never restarts the
    /// copy, since the whole copy happens inside one read transaction). When this connection is inside a read
    /// transaction, the copy is that transaction's snapshot.
    ///
    /// The pages are written to `destinationPath + ".partial"` first and the file appears under its final name only
    /// once complete and synced, so a reader of the destination directory never sees a half-written backup. The
    /// copy keeps the source's journal mode (a WAL database's backup opens in WAL mode).
    ///
    /// - Parameter destinationPath: The file to create; its directory must exist.
    /// - Throws: ``DatabaseError``: `SQLITE_CANTOPEN` when `destinationPath` already exists or cannot be created;
    ///   `SQLITE_BUSY`/`SQLITE_LOCKED` when the source is locked; any I/O error of the copy. On failure, no file is
    ///   left at `destinationPath`.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/backup.html>,
    /// <https://www.sqlite.org/c3ref/backup_finish.html>
    public func backup(to destinationPath: String) throws {
        let (_, source) = try openConnection()
        if access(destinationPath, F_OK) == 0 {
            throw DatabaseError(
                kind: .sqlite,
                extendedResultCode: .SQLITE_CANTOPEN,
                message: "the backup destination already exists"
            )
        }
        let partialPath = destinationPath + ".partial"
        // A leftover of an interrupted backup is ours to replace.
        BackupFile.remove(partialPath)
        BackupFile.remove(partialPath + "-journal")
        do {
            try Self.copy(from: source, toNewFile: partialPath)
            try BackupFile.publish(partialPath, as: destinationPath)
        } catch {
            BackupFile.remove(partialPath)
            BackupFile.remove(partialPath + "-journal")
            throw error
        }
    }

    private static func copy(from source: OpaquePointer, toNewFile path: String) throws {
        var destination: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let openCode = sqlite3_open_v2(path, &destination, flags, nil)
        guard openCode == SQLITE_OK, let destination else {
            let message =
                destination.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(openCode))
            sqlite3_close_v2(destination)
            throw DatabaseError(kind: .sqlite, extendedResultCode: ResultCode(rawValue: openCode), message: message)
        }
        defer { sqlite3_close_v2(destination) }
        sqlite3_extended_result_codes(destination, 1)
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            // sqlite3_backup_init reports its error on the destination connection.
            let code = sqlite3_extended_errcode(destination)
            throw DatabaseError(
                kind: .sqlite,
                extendedResultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(destination))
            )
        }
        let stepCode = sqlite3_backup_step(backup, -1)
        // sqlite3_backup_finish releases the locks and sets the destination's error code from the backup's outcome.
        let finishCode = sqlite3_backup_finish(backup)
        if stepCode != SQLITE_DONE {
            // A source-side failure (BUSY, LOCKED, I/O) is also what backup_finish returns; its message is only on
            // the connection that failed, so prefer the source's message when the source holds the same code.
            let code = finishCode != SQLITE_OK ? finishCode : stepCode
            let message: String
            if sqlite3_extended_errcode(source) == code {
                message = String(cString: sqlite3_errmsg(source))
            } else if sqlite3_extended_errcode(destination) == code {
                message = String(cString: sqlite3_errmsg(destination))
            } else {
                message = String(cString: sqlite3_errstr(code))
            }
            throw DatabaseError(kind: .sqlite, extendedResultCode: ResultCode(rawValue: code), message: message)
        }
        if finishCode != SQLITE_OK {
            throw DatabaseError(
                kind: .sqlite,
                extendedResultCode: ResultCode(rawValue: finishCode),
                message: String(cString: sqlite3_errmsg(destination))
            )
        }
    }
}

/// File-system steps of a backup, kept apart from `Database` whose `open()`/`close()` would shadow the C calls.
private enum BackupFile {
    /// Gives the complete file its final name without ever replacing an existing file, then syncs the directory
    /// so that the new name survives a crash.
    static func publish(_ partialPath: String, as destinationPath: String) throws {
        // link(2) fails with EEXIST instead of replacing, unlike rename(2): two backups racing for one name cannot
        // overwrite each other.
        if link(partialPath, destinationPath) == 0 {
            remove(partialPath)
        } else {
            let linkError = errno
            guard linkError == EPERM || linkError == EOPNOTSUPP || linkError == ENOTSUP else {
                throw fileError(linkError, linkError == EEXIST ? "the backup destination already exists" : nil)
            }
            // File systems without hard links: a plain rename after checking again.
            if access(destinationPath, F_OK) == 0 {
                throw fileError(EEXIST, "the backup destination already exists")
            }
            if rename(partialPath, destinationPath) != 0 {
                throw fileError(errno, nil)
            }
        }
        syncDirectory(of: destinationPath)
    }

    private static func fileError(_ code: Int32, _ message: String?) -> DatabaseError {
        DatabaseError(
            kind: .sqlite,
            extendedResultCode: .SQLITE_CANTOPEN,
            message: message ?? "could not create the backup file: \(String(cString: strerror(code)))"
        )
    }

    private static func syncDirectory(of path: String) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        // Best effort: the backup itself is complete and synced by SQLite; only its directory entry could be lost.
        _ = fsync(descriptor)
        close(descriptor)
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }
}
