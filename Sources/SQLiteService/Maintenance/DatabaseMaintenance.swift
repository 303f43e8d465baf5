public import SQLiteEngine

/// The maintenance a database owner runs: `VACUUM`, WAL checkpoints, `PRAGMA optimize` and `ANALYZE`.
///
/// Clients' SQL cannot run these (the SQL policy refuses `VACUUM` and `PRAGMA optimize`); these operations run the
/// fixed statements on the writer connection with the policy lifted for their duration, and are reached through
/// the admin endpoints, the `sqlited vacuum|checkpoint|optimize` commands and the scheduler. The caller must hold
/// the connection in autocommit mode with nothing else running on it (`DatabasePool.write`): `VACUUM` cannot run
/// inside a transaction.
public enum DatabaseMaintenance {
    /// What a `VACUUM` did: the database's size (pages × page size) before and after.
    public struct VacuumResult: Sendable, Equatable {
        public var sizeBefore: Int64
        public var sizeAfter: Int64
        /// The checkpoint run after it: `truncate`, which moves the rewritten pages into the database file and
        /// empties the WAL, or `passive` when a reader still on an older snapshot was in the way (the file then
        /// shrinks at a later checkpoint); nil when neither could run.
        public var checkpoint: CheckpointResult?
    }

    /// What a checkpoint did (`sqlite3_wal_checkpoint_v2`): frames in the WAL, and how many of them were copied
    /// into the database file.
    public struct CheckpointResult: Sendable, Equatable {
        public var mode: CheckpointMode
        public var walFrames: Int
        public var checkpointedFrames: Int
    }

    /// Rebuilds the database file (`VACUUM`), then tries a `TRUNCATE` checkpoint so that the file shrinks at once.
    public static func vacuum(_ db: Database) throws -> VacuumResult {
        let before = try size(of: db)
        try withPolicyLifted(on: db) {
            // VACUUM attaches its temporary copy internally; the service keeps the attach limit at 0 for clients.
            let attachLimit = db.setLimit(.attached, 1)
            defer { _ = db.setLimit(.attached, attachLimit) }
            try db.execute(sql: "VACUUM")
        }
        let after = try size(of: db)
        // Without waiting: a reader on an older snapshot would otherwise hold the writer (and every write) for the
        // whole busy timeout. When a reader is in the way, a passive checkpoint copies what it can.
        let busyTimeout = db.busyTimeout
        db.busyTimeout = .zero
        defer { db.busyTimeout = busyTimeout }
        let checkpoint =
            (try? self.checkpoint(db, mode: .truncate)) ?? (try? self.checkpoint(db, mode: .passive))
        return VacuumResult(sizeBefore: before, sizeAfter: after, checkpoint: checkpoint)
    }

    /// Runs a WAL checkpoint; `SQLITE_BUSY` when a `full`, `restart` or `truncate` checkpoint cannot get its locks
    /// within the connection's busy timeout (readers holding old snapshots, another checkpoint).
    public static func checkpoint(_ db: Database, mode: CheckpointMode) throws -> CheckpointResult {
        let (walFrames, checkpointedFrames) = try db.checkpoint(mode)
        return CheckpointResult(mode: mode, walFrames: walFrames, checkpointedFrames: checkpointedFrames)
    }

    /// `PRAGMA optimize` (statistics refreshed where SQLite judges them stale), preceded by a full `ANALYZE` when
    /// `analyze` is true.
    public static func optimize(_ db: Database, analyze: Bool) throws {
        try withPolicyLifted(on: db) {
            if analyze { try db.execute(sql: "ANALYZE") }
            try db.execute(sql: "PRAGMA optimize")
        }
    }

    /// The database's size as SQLite counts it: pages × page size (the file's size once the WAL is checkpointed).
    static func size(of db: Database) throws -> Int64 {
        try withPolicyLifted(on: db) {
            let pages = try db.int64(sql: "PRAGMA page_count") ?? 0
            let pageSize = try db.int64(sql: "PRAGMA page_size") ?? 0
            return pages * pageSize
        }
    }

    /// Runs `body` without the SQL policy's authorizer, then puts the policy back if the connection had it. Only
    /// this type's fixed statements run meanwhile.
    private static func withPolicyLifted<T>(on db: Database, _ body: () throws -> T) throws -> T {
        guard PolicyRegistry.shared.state(for: db) != nil else { return try body() }
        db.setAuthorizer(nil)
        defer { SQLPolicy.install(on: db, role: .writer) }
        return try body()
    }
}
