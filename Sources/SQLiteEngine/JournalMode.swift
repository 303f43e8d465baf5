/// A journal mode (`PRAGMA journal_mode`).
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>
public enum JournalMode: String, Sendable, Hashable, CaseIterable {
    case delete
    case truncate
    case persist
    case memory
    case wal
    case off
}

/// A synchronous setting (`PRAGMA synchronous`).
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>
public enum SynchronousMode: String, Sendable, Hashable, CaseIterable {
    case off
    case normal
    case full
    case extra
}
