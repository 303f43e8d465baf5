import Foundation

/// Transactions on the cluster tried again while the leader's write lock is taken.
///
/// The leader runs one write transaction at a time, and writers of every node meet there. The cluster's
/// transactions begin with `BEGIN IMMEDIATE`, which meets another node's lock at once and is asked again by
/// ``DqliteCluster/ClusterClient`` after a short pause, before any statement ran; a transaction that still fails
/// with `SQLITE_BUSY` later (the lock taken between two of its statements cannot happen then, but the client gives
/// the BEGIN up at its call timeout) is rolled back with nothing committed, so the whole of it may run again. The
/// local backend, whose single writer makes requests wait their turn, never answers busy for this. (A single
/// statement in autocommit mode is retried by the client itself; a busy COMMIT comes back as `UNAVAILABLE` and is
/// not retried here.)
enum BusyRetry {
    /// Runs `attempt`, and again after a pause growing from 200 µs to 2 ms while it fails with `SQLITE_BUSY`, until
    /// `deadline`; then the last error. (It was 2 → 100 ms: a lock holder keeps the lock for about one Raft round,
    /// and the long pauses were idle time; issue #26.)
    static func run<T>(
        until deadline: ContinuousClock.Instant,
        _ attempt: () throws(APIError) -> T
    ) throws(APIError) -> T {
        var pause = Duration.microseconds(200)
        while true {
            do {
                return try attempt()
            } catch {
                guard isBusy(error), ContinuousClock.now + pause < deadline else { throw error }
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
                pause = min(pause * 2, .milliseconds(2))
            }
        }
    }

    /// Whether `error` is SQLite's `SQLITE_BUSY` (any extended code of it).
    static func isBusy(_ error: APIError) -> Bool {
        error.sqliteCode.map { $0 & 0xff == 5 } == true
    }
}
