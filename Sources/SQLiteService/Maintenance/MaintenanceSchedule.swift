/// When the service maintains the database on its own (`database.checkpoint.wal_size_limit`,
/// `database.optimize_interval`).
public struct MaintenanceSchedule: Sendable, Equatable {
    /// A WAL file larger than this gets a `TRUNCATE` checkpoint once writes let it; 0 turns that off.
    public var walSizeLimit: Int64 = 64 << 20
    /// How often `PRAGMA optimize` runs; `.zero` turns it off (it still runs when the database is closed).
    public var optimizeInterval: Duration = .seconds(3600)
    /// How often the WAL's size is looked at (a `stat` of the file).
    public var checkInterval: Duration = .seconds(1)
    /// How long an automatic checkpoint waits for readers still on older snapshots, holding the writer meanwhile.
    public var checkpointWait: Duration = .milliseconds(100)

    public init() {}
}
