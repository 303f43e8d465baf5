import Logging

/// What the group committer needs of one write request besides its work: its size, its time limits, and whether it
/// may run alone in autocommit mode (see ``GroupTicket``).
struct GroupRequest {
    /// The size of the request's body, counted against a group's `max_bytes`.
    var bytes: Int
    /// When the request's time limit runs out: past it, the request fails with `TIMEOUT` without running (nil:
    /// none).
    var deadline: ContinuousClock.Instant?
    /// Whether the request's work is one transaction when it runs alone in autocommit mode (a `/batch`'s is not:
    /// each of its statements commits on its own), so that a group of it alone can skip the group's transaction.
    var isOneTransaction: Bool
    /// How long the request waits for the writer while an interactive transaction holds it (``WriterLease``): past
    /// it the request fails with 503 `SQLITE_BUSY` without running (nil: as long as it takes).
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
