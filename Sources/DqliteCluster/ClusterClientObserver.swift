/// Receives what a ``ClusterClient`` measures and counts as it serves calls, for a caller's metrics.
///
/// Called on the thread making the call, outside the client's lock; an implementation must be quick and must not
/// call the client back.
public protocol ClusterClientObserver: Sendable {
    /// One request on a leader connection answered (rows, changes, or the leader's FAILURE), `duration` from
    /// sending it to reading the whole answer: the wire round trip, with the leader's work on the statement.
    /// Requests that got no answer (a broken connection, a time-out) are not reported.
    func roundTrip(_ duration: Duration)

    /// A call is tried again after a failure of the connection or the leader (see ``ClusterClient``'s retry rules).
    func retried()

    /// A write ended with ``ClusterError/Kind-swift.enum/outcomeUnknown``.
    func outcomeUnknown()

    /// The client found a leader other than the one it used before (`id`).
    func leaderChanged(to id: UInt64)

    /// A write or a `BEGIN IMMEDIATE` met the leader's write lock held by another connection (`SQLITE_BUSY`) and
    /// is tried again after a short pause (see ``ClusterClient``).
    func busyWaited()
}

extension ClusterClientObserver {
    public func busyWaited() {}
}

/// What a ``ClusterClient`` has counted since it was created.
public struct ClusterClientStatistics: Sendable, Hashable {
    /// How many times the client found a leader other than the one it used before.
    public var leaderChanges: UInt64 = 0
    /// Calls tried again after a failure of the connection or the leader.
    public var retries: UInt64 = 0
    /// Writes that ended with ``ClusterError/Kind-swift.enum/outcomeUnknown``.
    public var outcomeUnknown: UInt64 = 0
    /// Requests answered on leader connections, and their total round-trip time.
    public var roundTrips: UInt64 = 0
    public var roundTripTime: Duration = .zero
    /// Writes and `BEGIN IMMEDIATE`s tried again because the leader's write lock was held (`SQLITE_BUSY`).
    public var busyWaits: UInt64 = 0

    public init() {}
}
