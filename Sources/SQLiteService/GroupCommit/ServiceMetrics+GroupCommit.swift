extension ServiceMetrics {
    /// Counts one committed group of `requests` requests whose `COMMIT` took `duration`.
    func recordGroupCommit(requests: Int, duration: Duration) {
        groupCommits.increment()
        groupCommitRequests.record(requests)
        let (seconds, attoseconds) = duration.components
        groupCommitDuration.recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
