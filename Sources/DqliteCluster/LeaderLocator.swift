import DqliteClient

/// Finds the leader of a cluster from the addresses of some of its members, as go-dqlite's connector does: ask
/// each member LEADER, connect to the address it names and ask again; the node that names itself is the leader.
///
/// One ``connect(members:deadline:)`` call is one pass over the members; callers loop with a ``Backoff`` while
/// no leader is known (an election takes a few election timeouts: 15 × the network latency each).
struct LeaderLocator {
    /// A connection to the node that answered LEADER with itself, with the leader's id and address.
    struct Found {
        var connection: DqliteConnection
        var id: UInt64
        var address: String
    }

    var options: DqliteConnection.Options

    /// One pass: the first member that names a leader which confirms it, or `nil`; `lastError` keeps the last
    /// failure seen, for the error a caller throws at its deadline.
    func connect(
        members: [String],
        deadline: ContinuousClock.Instant,
        lastError: inout DqliteError?
    ) -> Found? {
        for member in members {
            guard ContinuousClock.now < deadline else { return nil }
            do {
                let connection = try open(member, deadline: deadline)
                guard let named = try connection.leader() else {
                    connection.close()
                    continue
                }
                if named.address == member {
                    return Found(connection: connection, id: named.id, address: named.address)
                }
                connection.close()
                // The member may know of a leader that has since stepped down: the leader must name itself.
                let leader = try open(named.address, deadline: deadline)
                if let confirmed = try leader.leader(), confirmed.address == named.address {
                    return Found(connection: leader, id: confirmed.id, address: confirmed.address)
                }
                leader.close()
            } catch {
                lastError = error
            }
        }
        return nil
    }

    /// A connection to `address` whose connect wait ends at `deadline` at the latest.
    func open(_ address: String, deadline: ContinuousClock.Instant) throws(DqliteError) -> DqliteConnection {
        var bounded = options
        bounded.connectTimeout = max(.milliseconds(1), min(options.connectTimeout, deadline - .now))
        return try DqliteConnection(address: address, options: bounded)
    }
}
