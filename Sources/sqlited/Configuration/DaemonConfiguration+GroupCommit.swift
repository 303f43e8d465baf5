import SQLiteService

extension DaemonConfiguration {
    /// `database.group_commit.enabled`, `.max_requests` and `.max_bytes`.
    static func loadGroupCommit(from values: LayeredConfiguration) throws(ConfigurationError) -> GroupCommitOptions {
        var options = GroupCommitOptions()
        options.isEnabled = try values.bool("database.group_commit.enabled", default: options.isEnabled)
        options.maxRequests = try values.int(
            "database.group_commit.max_requests",
            default: options.maxRequests,
            range: 1...100_000
        )
        options.maxBytes = try values.int(
            "database.group_commit.max_bytes",
            default: options.maxBytes,
            range: 1...(1 << 34)
        )
        return options
    }
}
