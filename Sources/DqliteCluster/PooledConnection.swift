import DqliteClient

/// A connection to the leader with its database open, as the ``ClusterClient``'s pool holds it.
///
/// `@unchecked Sendable`: the wrapped ``DqliteConnection`` is not thread-safe, and is used by one thread at a time
/// by construction: it sits in the pool, reached only under the client's `Mutex`, or it is checked out, and then
/// only the thread that checked it out holds a reference until it checks it back in or closes it.
final class PooledConnection: @unchecked Sendable {
    let connection: DqliteConnection
    /// The database id OPEN returned on this connection.
    let database: UInt32
    /// The leader this connection was opened to, and the client's leader generation at the time: a connection of
    /// an older generation is closed instead of pooled.
    let leaderID: UInt64
    let generation: UInt64

    init(connection: DqliteConnection, database: UInt32, leaderID: UInt64, generation: UInt64) {
        self.connection = connection
        self.database = database
        self.leaderID = leaderID
        self.generation = generation
    }
}
