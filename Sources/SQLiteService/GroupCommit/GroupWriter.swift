/// What the group committer needs of a storage's writer: take it for one group, and begin, commit or roll back the
/// group's transaction on it. ``GroupCommitter`` is written once over it; ``LocalGroupWriter`` (the local writer,
/// one fsync per group) and ``ClusterGroupWriter`` (the cluster's leader, one Raft entry per group) conform.
///
/// Every method is called by the group's leader only, one group at a time, on the thread that called
/// ``withUnit(waitingUntil:_:)``.
protocol GroupWriter: Sendable {
    /// What a request's work runs on while its group holds the writer.
    associatedtype Unit

    /// Whether a request's deferred constraints (deferred foreign keys) are checked only by the group's `COMMIT`,
    /// not at the end of the request's savepoint: a group whose `COMMIT` fails on one then runs each of its requests
    /// again in a transaction of its own, so that only the culprit fails. (The local writer checks at each
    /// savepoint's end, so a constraint failing at its `COMMIT` is no request's, and fails the whole group.)
    var checksDeferredConstraintsAtCommitOnly: Bool { get }

    /// Takes the writer for one group and runs `body` with it; throws when the writer cannot be taken (then every
    /// request of the group fails with that error). A writer an interactive transaction holds (``WriterLease``) is
    /// waited for until `limit` (nil: as long as it takes): past it nothing runs and the wait's error is returned,
    /// for the requests whose own limit passed; nil once `body` ran.
    func withUnit(waitingUntil limit: ContinuousClock.Instant?, _ body: (Unit) -> Void) throws(APIError) -> APIError?

    /// Opens the group's transaction (`BEGIN IMMEDIATE`).
    func begin(_ unit: Unit) throws(APIError)

    /// Whether the group's transaction is open: false before ``begin(_:)``, after ``commit(_:)`` or
    /// ``rollback(_:)``, and once the storage rolled it back on its own with a failing statement.
    func isInTransaction(_ unit: Unit) -> Bool

    /// Commits the group's transaction. On failure it is over, and the error is every committed member's answer:
    /// `rolled_back` when nothing was committed, or the storage's "outcome unknown" (503) when that cannot be known.
    func commit(_ unit: Unit) throws(APIError)

    /// Rolls the group's transaction back, when one is open.
    func rollback(_ unit: Unit)
}
