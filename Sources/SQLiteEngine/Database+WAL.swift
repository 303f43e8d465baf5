internal import CSQLite

extension Database {
    /// Sets the journal mode and returns the mode now in effect (SQLite may refuse a change, for example to WAL for
    /// an in-memory database, and then reports the mode it kept).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>
    public func setJournalMode(_ mode: JournalMode) throws -> JournalMode {
        let result = try string(sql: "PRAGMA journal_mode = \(mode.rawValue.uppercased())")
        guard let result, let mode = JournalMode(rawValue: result.lowercased()) else {
            throw DatabaseError.misuse("unexpected journal mode reported by SQLite")
        }
        return mode
    }

    /// The journal mode in effect.
    public var journalMode: JournalMode {
        get throws {
            let result = try string(sql: "PRAGMA journal_mode")
            guard let result, let mode = JournalMode(rawValue: result.lowercased()) else {
                throw DatabaseError.misuse("unexpected journal mode reported by SQLite")
            }
            return mode
        }
    }

    /// Runs a WAL checkpoint on the main database.
    ///
    /// - Returns: The number of frames in the WAL and the number of them copied into the database (both -1 when the
    ///   database is not in WAL mode).
    /// - Throws: ``DatabaseError``, for example `SQLITE_BUSY` when a `.full`, `.restart` or `.truncate` checkpoint
    ///   could not get its locks within the busy timeout.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> (walFrames: Int, checkpointedFrames: Int) {
        let (connection, handle) = try openConnection()
        var walFrames: Int32 = 0
        var checkpointedFrames: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, mode.sqliteValue, &walFrames, &checkpointedFrames)
        try connection.check(code)
        return (Int(walFrames), Int(checkpointedFrames))
    }
}
