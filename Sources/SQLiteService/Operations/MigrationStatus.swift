/// Where a database stands relative to a migrations directory.
public struct MigrationStatus: Sendable, Hashable {
    /// The database's `PRAGMA user_version`: the number of the last migration applied (0 for none).
    public var currentVersion: Int
    /// The number of the last migration file in the directory (0 when it holds none).
    public var latestVersion: Int
    /// File names already applied (numbered up to ``currentVersion``), in order.
    public var applied: [String]
    /// File names still to apply, in order.
    public var pending: [String]

    public init(currentVersion: Int, latestVersion: Int, applied: [String], pending: [String]) {
        self.currentVersion = currentVersion
        self.latestVersion = latestVersion
        self.applied = applied
        self.pending = pending
    }

    /// Whether the database is newer than every migration file: it was migrated by a later release, and this one
    /// must not run on it.
    public var isAhead: Bool {
        currentVersion > latestVersion
    }
}
