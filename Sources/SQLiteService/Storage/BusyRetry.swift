import Foundation

/// Transactions on the cluster tried again while the leader's write lock is taken.
///
/// The leader runs one write transaction at a time, and writers of every node meet there: a transaction opened
/// while another node's holds the lock fails at its first write with `SQLITE_BUSY` (dqlite does not wait). The
/// transaction is then rolled back and nothing of it was committed, so the whole of it may run again; the local
/// backend, whose single writer makes requests wait their turn, never answers busy for this. (A single statement
/// in autocommit mode is retried by ``DqliteCluster/ClusterClient`` itself; a busy COMMIT comes back as
/// `UNAVAILABLE` and is not retried here.)
enum BusyRetry {
    /// Runs `attempt`, and again after a pause growing from 2 to 100 ms while it fails with `SQLITE_BUSY`, until
    /// `deadline`; then the last error.
    static func run<T>(
        until deadline: ContinuousClock.Instant,
        _ attempt: () throws(APIError) -> T
    ) throws(APIError) -> T {
        var pause = Duration.milliseconds(2)
        while true {
            do {
                return try attempt()
            } catch {
                guard isBusy(error), ContinuousClock.now + pause < deadline else { throw error }
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
                pause = min(pause * 2, .milliseconds(100))
            }
        }
    }

    /// Whether `error` is SQLite's `SQLITE_BUSY` (any extended code of it).
    static func isBusy(_ error: APIError) -> Bool {
        error.sqliteCode.map { $0 & 0xff == 5 } == true
    }
}
