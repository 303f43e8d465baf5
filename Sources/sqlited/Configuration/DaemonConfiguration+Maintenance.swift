import SQLiteService

extension DaemonConfiguration {
    /// `database.checkpoint.wal_size_limit` (bytes, 0 = off) and `database.optimize_interval` (seconds, 0 = only when
    /// the database closes).
    static func loadMaintenance(from values: LayeredConfiguration) throws(ConfigurationError) -> MaintenanceSchedule {
        var schedule = MaintenanceSchedule()
        schedule.walSizeLimit = Int64(
            try values.int(
                "database.checkpoint.wal_size_limit",
                default: Int(schedule.walSizeLimit),
                range: 0...(1 << 40)
            )
        )
        schedule.optimizeInterval = .seconds(
            try values.int(
                "database.optimize_interval",
                default: Int(schedule.optimizeInterval / .seconds(1)),
                range: 0...(7 * 86_400)
            )
        )
        return schedule
    }
}
