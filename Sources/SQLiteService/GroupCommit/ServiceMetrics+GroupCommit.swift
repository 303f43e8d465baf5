extension ServiceMetrics {
    /// Counts one committed group of `requests` requests whose `COMMIT` took `duration`.
    func recordGroupCommit(requests: Int, duration: Duration) {
        groupCommits.increment()
        groupCommitRequests.record(requests)
        groupCommitDuration.recordNanoseconds(duration.clampedNanoseconds)
    }
}
