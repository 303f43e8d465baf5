internal import CSQLite

/// A WAL checkpoint mode (`sqlite3_wal_checkpoint_v2`).
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>
public enum CheckpointMode: Sendable, Hashable, CaseIterable {
    /// Copy as many frames as possible without waiting for readers or writers.
    case passive
    /// Wait for the writer, then for readers, then copy every frame.
    case full
    /// As `.full`, then wait for readers so that the next writer restarts the WAL from the beginning.
    case restart
    /// As `.restart`, then truncate the WAL file to zero bytes.
    case truncate

    var sqliteValue: Int32 {
        switch self {
        case .passive: SQLITE_CHECKPOINT_PASSIVE
        case .full: SQLITE_CHECKPOINT_FULL
        case .restart: SQLITE_CHECKPOINT_RESTART
        case .truncate: SQLITE_CHECKPOINT_TRUNCATE
        }
    }
}
