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

    /// The statements prepared on this connection, by SQL text (``prepared(_:)``): the leader parses a statement
    /// once per connection instead of once per request (QUERY_SQL and EXEC_SQL prepare, run and finalize each
    /// time; measured, parsing was 30% of the leader's time for point reads).
    private var statements: [String: DqliteStatement] = [:]

    /// How many statements one connection keeps prepared; past it, one is finalized for each new one.
    static let statementLimit = 128

    init(connection: DqliteConnection, database: UInt32, leaderID: UInt64, generation: UInt64) {
        self.connection = connection
        self.database = database
        self.leaderID = leaderID
        self.generation = generation
    }

    /// The statement prepared on this connection for `sql`, which must hold one statement (PREPARE keeps the
    /// first and drops the rest): the one kept from before, or prepared now (one more round trip, through `timed`)
    /// and kept. SQLite prepares a kept statement again by itself when the schema changed.
    ///
    /// `client` times the PREPARE as one of its round trips.
    /// `isKept` tells the statements that must not be the one finalized to make room (asked only then).
    func prepared(
        _ sql: String,
        keeping isKept: (String) -> Bool = { _ in false },
        timedBy client: ClusterClient
    ) throws(DqliteError) -> DqliteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try client.timed { () throws(DqliteError) in try connection.prepare(sql, database: database) }
        if statements.count >= Self.statementLimit, let victim = statements.first(where: { !isKept($0.key) }) {
            statements[victim.key] = nil
            try connection.finalize(victim.value)
        }
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that reads: whole (QUERY_SQL), or by the id of its statement kept prepared on this
    /// connection (QUERY, ``withPrepared(_:timedBy:_:)``) when `prepared`; each request timed by `client` as one
    /// round trip.
    func query(
        _ sql: String,
        parameters: [DqliteValue],
        deadline: ContinuousClock.Instant?,
        prepared: Bool,
        timedBy client: ClusterClient
    ) throws(DqliteError) -> DqliteRows {
        guard prepared else {
            return try client.timed { () throws(DqliteError) in
                try connection.query(sql: sql, parameters: parameters, database: database, deadline: deadline)
            }
        }
        return try withPrepared(sql, timedBy: client) { (statement) throws(DqliteError) in
            try connection.query(statement, parameters: parameters, deadline: deadline)
        }
    }

    /// Runs a statement that may write: whole (EXEC_SQL, which may hold several statements), or by the id of its
    /// kept statement (EXEC) when `prepared`, as ``query(_:parameters:deadline:prepared:timedBy:)``.
    func exec(
        _ sql: String,
        parameters: [DqliteValue],
        prepared: Bool,
        timedBy client: ClusterClient
    ) throws(DqliteError) -> DqliteExecResult {
        guard prepared else {
            return try client.timed { () throws(DqliteError) in
                try connection.exec(sql: sql, parameters: parameters, database: database)
            }
        }
        return try withPrepared(sql, timedBy: client) { (statement) throws(DqliteError) in
            try connection.exec(statement, parameters: parameters)
        }
    }

    /// Runs `request` with `sql`'s kept statement (``prepared(_:keeping:timedBy:)``); a failure that may come from the
    /// schema (`SQLITE_ERROR`, `SQLITE_SCHEMA`) finalizes and forgets the statement, so that the next use prepares
    /// it anew (a failure to finalize is the connection's, found by its next request).
    func withPrepared<T>(
        _ sql: String,
        timedBy client: ClusterClient,
        _ request: (DqliteStatement) throws(DqliteError) -> T
    ) throws(DqliteError) -> T {
        let statement = try prepared(sql, timedBy: client)
        do {
            return try client.timed { () throws(DqliteError) in try request(statement) }
        } catch {
            forget(sql, after: error)
            throw error
        }
    }

    /// Runs the kept statements of `reads`, in order, sent in one write (QUERY each) and answered in order
    /// (``DqliteConnection/collectRows(_:deadline:)``): one round trip, timed by `client`, for all of them. Each
    /// result is its statement's rows or FAILURE (one the leader refused to prepare is not sent); a failure that
    /// may come from the schema forgets its statement.
    ///
    /// At most ``statementLimit`` distinct statements: none of them is the one finalized to make room for another.
    func queryPipelined(
        _ reads: [ClusterRead],
        deadline: ContinuousClock.Instant?,
        timedBy client: ClusterClient
    ) throws(DqliteError) -> [Result<DqliteRows, DqliteError>] {
        var results = [Result<DqliteRows, DqliteError>?](repeating: nil, count: reads.count)
        var requests: [DqliteRequest] = []
        var sent: [Int] = []
        requests.reserveCapacity(reads.count)
        sent.reserveCapacity(reads.count)
        for (index, read) in reads.enumerated() {
            do throws(DqliteError) {
                let statement = try prepared(
                    read.sql,
                    keeping: { kept in reads.contains { $0.sql == kept } },
                    timedBy: client
                )
                requests.append(.query(database: database, statement: statement.id, parameters: read.parameters))
                sent.append(index)
            } catch {
                // The leader refused to prepare this one (its answer); the others still run.
                guard error.kind == .failure else { throw error }
                results[index] = .failure(error)
            }
        }
        if !requests.isEmpty {
            let answers = try client.timed { () throws(DqliteError) in
                try connection.collectRows(requests, deadline: deadline)
            }
            for (index, answer) in zip(sent, answers) {
                results[index] = answer
                if case .failure(let error) = answer { forget(reads[index].sql, after: error) }
            }
        }
        return results.map { $0! }
    }

    /// After `error` from `sql`'s kept statement: one that may come from the schema (`SQLITE_ERROR`,
    /// `SQLITE_SCHEMA`) finalizes and forgets the statement.
    func forget(_ sql: String, after error: DqliteError) {
        guard error.kind == .failure, error.code & 0xff == 1 || error.code & 0xff == 17, connection.isOpen,
            let statement = statements.removeValue(forKey: sql)
        else { return }
        try? connection.finalize(statement)
    }

    /// How many statements are kept prepared (for tests).
    var preparedCount: Int { statements.count }
}
