import Logging

/// What the group committer needs of one write request besides its work: its size, its time limits, and whether it
/// may run alone in autocommit mode (see ``GroupTicket``).
struct GroupRequest {
    /// The size of the request's body, counted against a group's `max_bytes`.
    var bytes: Int
    /// When the request's time limit runs out (nil: none).
    var deadline: ContinuousClock.Instant?
    /// Whether the request's work is all or nothing when it runs alone in autocommit mode (see
    /// ``GroupTicket/isOneTransaction``).
    var isOneTransaction: Bool
    /// How long the request waits for a writer an interactive transaction holds (nil: as long as it takes).
    var writerWaitLimit: ContinuousClock.Instant? = nil
}

/// Where a storage's groups run, and under which options, metrics and logger: the same for all of the storage's
/// requests at a time (a reload changes the options from the next group on).
struct GroupContext<Writer: GroupWriter> {
    var writer: Writer
    var options: GroupCommitOptions
    var metrics: ServiceMetrics?
    var logger: Logger
}
