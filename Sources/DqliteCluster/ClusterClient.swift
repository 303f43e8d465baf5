public import DqliteClient
import Synchronization

/// A thread-safe client of the cluster for request handlers: statements go to the leader, found from a list of
/// member addresses and followed when it changes, over a small pool of connections that have one database open.
///
/// Retry rules (issue #15): a read (``query(_:parameters:)``) is retried on another connection, or another leader,
/// after any error of the connection or the leader; a write (``exec(_:parameters:)``) only when it certainly did
/// not reach the leader (see ``RetryPolicy``); a write whose outcome is unknown throws
/// ``ClusterError/Kind-swift.enum/outcomeUnknown`` and is never retried. Every call ends within
/// ``Options/callTimeout`` (plus at most one ``DqliteConnection/Options/requestTimeout`` for a request already
/// sent), with ``ClusterError/Kind-swift.enum/unavailable`` when no leader served it.
///
/// Reads go to the leader too (dqlite 1.11 serves no statement elsewhere), so a read after an acknowledged write
/// sees it, whichever member the caller talks to.
///
/// Connections are not `Sendable`: a call checks one out of the pool under the lock, uses it alone, and checks it
/// back in. After the leader changes, pooled connections of the old leader are closed as they are met.
public final class ClusterClient: Sendable {
    /// The database and the time limits of a client.
    public struct Options: Sendable, Hashable {
        /// The database every connection opens (OPEN): dqlite's databases are named, one per connection.
        public var database: String
        /// The longest a call spends finding the leader and retrying.
        public var callTimeout: Duration
        /// Deadlines and limits of each connection; its request timeout bounds the wait for one answer.
        public var connection: DqliteConnection.Options
        /// The most idle connections kept open to the leader.
        public var maxIdleConnections: Int
        /// `PRAGMA query_only` for every connection, run right after OPEN, before the connection serves a call;
        /// `nil` runs nothing.
        ///
        /// `true` makes a read client: on the leader, any write through it (sent to
        /// ``ClusterClient/query(_:parameters:)`` or ``ClusterClient/exec(_:parameters:)``) fails before it
        /// changes anything, so nothing is replicated. This is how the read-only rule of `POST /query` holds in
        /// cluster mode, where no node but the leader can prepare the SQL to check it. On a leader with
        /// SQLiteService's `LeaderPolicy`, a write fails when it is prepared, with `SQLITE_AUTH` (23) "not
        /// authorized", like a policy denial (setting a pragma included); what gets past the authorizer (`BEGIN
        /// IMMEDIATE`) fails with SQLite's own `SQLITE_READONLY` (8). This first statement also seals the
        /// setting there: later statements may read `query_only` but not change it, so a caller cannot lift the
        /// rule. A write client should set `false` for the same reason: without it, a caller's first statement on
        /// a new connection could set `query_only` and leave a pooled writer connection refusing writes.
        public var queryOnly: Bool?

        public init(
            database: String,
            callTimeout: Duration = .seconds(10),
            connection: DqliteConnection.Options = DqliteConnection.Options(
                connectTimeout: .seconds(2),
                requestTimeout: .seconds(10)
            ),
            maxIdleConnections: Int = 8,
            queryOnly: Bool? = nil
        ) {
            self.database = database
            self.callTimeout = callTimeout
            self.connection = connection
            self.maxIdleConnections = maxIdleConnections
            self.queryOnly = queryOnly
        }
    }

    private struct State {
        /// The addresses asked for the leader: the ones given, then those the leader's CLUSTER answer adds.
        var members: [String]
        var leader: (id: UInt64, address: String)?
        /// Incremented whenever the leader is forgotten; pooled connections of older generations are closed.
        var generation: UInt64 = 0
        var idle: [PooledConnection] = []
        var statistics = ClusterClientStatistics()
        var observer: (any ClusterClientObserver)?
        /// The id of the last leader adopted, kept when the leader is forgotten, to count changes.
        var lastLeaderID: UInt64?
    }

    public let options: Options
    private let state: Mutex<State>

    /// A client that finds the leader through `members` (`"<IP>:<port>"` of any members; one is enough).
    /// Nothing is connected until the first call.
    public init(members: [String], options: Options) {
        self.options = options
        state = Mutex(State(members: members))
    }

    deinit {
        close()
    }

    /// The leader the client last used, or `nil` before the first call and after losing it.
    public var leader: (id: UInt64, address: String)? {
        state.withLock { $0.leader }
    }

    /// How many times the client found a leader other than the one it used before.
    public var leaderChanges: UInt64 {
        state.withLock { $0.statistics.leaderChanges }
    }

    /// What the client has counted and measured since it was created.
    public var statistics: ClusterClientStatistics {
        state.withLock { $0.statistics }
    }

    /// Sets the observer told of every round trip, retry, unknown outcome and leader change from now on (`nil`:
    /// none).
    public func setObserver(_ observer: (any ClusterClientObserver)?) {
        state.withLock { $0.observer = observer }
    }

    /// Closes the idle connections; later calls open new ones.
    public func close() {
        let idle = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle
        }
        for pooled in idle {
            pooled.connection.close()
        }
    }

    /// Runs one statement that reads (QUERY_SQL) on the leader and returns its rows with their column names and
    /// exact values. Retried after any failure of the connection or the leader, within the call timeout.
    ///
    /// The statement must not write: a write sent here would be retried like a read.
    ///
    /// With a `deadline` (a request's time limit) the call ends there if it has not ended before: a statement sent
    /// and not answered by then is `.deadlineExceeded`, not retried, its connection closed (the leader may still be
    /// running it: dqlite cannot stop a statement in the middle of a step).
    ///
    /// - Throws: ``ClusterError`` `.failure` (the leader refused the statement), `.unavailable`,
    ///   `.deadlineExceeded`, `.invalidArgument`, `.tooLarge`.
    ///
    /// With `prepared`, `sql` must hold one statement: it is prepared once per leader connection and kept
    /// (PREPARE, then QUERY by its id; ``PooledConnection/prepared(_:keeping:timedBy:)``), so the leader does not parse it
    /// again for every request.
    public func query(
        _ sql: String,
        parameters: [DqliteValue] = [],
        deadline: ContinuousClock.Instant? = nil,
        prepared: Bool = false
    ) throws(ClusterError) -> DqliteRows {
        try run(sql: sql, isWrite: false, callerDeadline: deadline) { (pooled) throws(DqliteError) in
            try pooled.query(sql, parameters: parameters, deadline: deadline, prepared: prepared, timedBy: self)
        }
    }

    /// Runs `probe`, then `sql`, both statements that read, on one leader connection, sent in one write and
    /// answered in order (``query(pipelined:deadline:)``, one round trip): what a caller learns from `probe` holds
    /// for the snapshot `sql` reads, or one before it. Either statement's FAILURE is thrown (`probe`'s first).
    public func query(
        _ sql: String,
        parameters: [DqliteValue] = [],
        deadline: ContinuousClock.Instant? = nil,
        after probe: String
    ) throws(ClusterError) -> (probe: DqliteRows, rows: DqliteRows) {
        let results = try query(
            pipelined: [ClusterRead(probe), ClusterRead(sql, parameters: parameters)],
            deadline: deadline
        )
        return (try results[0].get(), try results[1].get())
    }

    /// The most statements one pipelined call takes (``query(pipelined:deadline:)``): each is kept prepared on
    /// the connection for the length of the call, within ``PooledConnection/statementLimit``.
    public static let pipelineLimit = 64

    /// Runs `reads` on one leader connection, each kept prepared there (PREPARE once per connection), sent in one
    /// write and answered in order: one round trip for all of them. One result per read: its rows, or the
    /// leader's FAILURE for it (`.failure`; the others still ran). Retried whole, as ``query(_:parameters:deadline:prepared:)``,
    /// after an error of the connection or the leader (reads run again harmlessly).
    ///
    /// - Throws: ``ClusterError`` `.unavailable`, `.deadlineExceeded` (`deadline` passed), `.tooLarge`,
    ///   `.invalidArgument` (more than ``pipelineLimit`` reads).
    public func query(
        pipelined reads: [ClusterRead],
        deadline: ContinuousClock.Instant? = nil
    ) throws(ClusterError) -> [Result<DqliteRows, ClusterError>] {
        guard !reads.isEmpty else { return [] }
        guard reads.count <= Self.pipelineLimit else {
            throw ClusterError(
                kind: .invalidArgument,
                message: "a pipelined call takes at most \(Self.pipelineLimit) statements, not \(reads.count)"
            )
        }
        let results = try run(sql: reads[0].sql, isWrite: false, callerDeadline: deadline) {
            (pooled) throws(DqliteError) in
            let results = try pooled.queryPipelined(reads, deadline: deadline, timedBy: self)
            // A FAILURE that is about the leader (no longer the leader, busy) rather than the statement retries
            // the whole call, as it would one read.
            for case .failure(let error) in results
            where RetryPolicy.decide(after: error, isWrite: false) != .fail(.failure, keepConnection: true) {
                throw error
            }
            return results
        }
        return zip(reads, results).map { read, result in
            result.mapError { ClusterError(.failure, $0, sql: read.sql) }
        }
    }

    /// Runs one statement that reads (QUERY_SQL) on the leader and hands its rows to `eachPart` one ROWS part at a
    /// time, as they arrive (none gathered), holding one leader connection until the last part. Finding the leader
    /// is retried within the call timeout; the statement itself is sent once (a retry would deliver rows twice).
    /// Every read waits until `deadline` (the caller's time limit for the whole result).
    ///
    /// - Throws: ``ClusterError`` (`.failure` when the leader refused the statement or a step failed part way,
    ///   `.unavailable` when the connection broke, `.deadlineExceeded`), or what `eachPart` throws (the connection
    ///   is then closed: the rest of the result was still on its way).
    public func query(
        _ sql: String,
        parameters: [DqliteValue] = [],
        deadline: ContinuousClock.Instant,
        eachPart: (DqliteRows) throws -> Void
    ) throws {
        /// Why the request below stopped without an error of its own to report through `run`.
        enum Stop {
            case consumer(any Error)
            case broken(DqliteError)
        }
        var stop: Stop?
        var delivered = false
        do {
            try run(sql: sql, isWrite: false, callerDeadline: deadline) { (pooled) throws(DqliteError) -> Void in
                do {
                    try pooled.connection.query(
                        sql: sql,
                        parameters: parameters,
                        database: pooled.database,
                        deadline: deadline
                    ) { part in
                        delivered = true
                        do {
                            try eachPart(part)
                        } catch {
                            stop = .consumer(error)
                            throw error
                        }
                    }
                } catch let error as DqliteError {
                    guard delivered, error.kind != .failure else { throw error }
                    // Rows went out already: no retry (it would send them again).
                    stop = .broken(error)
                    throw DqliteError(kind: .invalidArgument, message: "the streamed query stopped", sql: sql)
                } catch {
                    throw DqliteError(kind: .invalidArgument, message: "the streamed query stopped", sql: sql)
                }
            }
        } catch {
            switch stop {
            case .consumer(let consumerError): throw consumerError
            case .broken(let broken):
                throw ClusterError(kind: .unavailable, code: broken.code, message: broken.description, sql: sql)
            case nil: throw error
            }
        }
    }

    /// Runs SQL that may write (EXEC_SQL) on the leader: rows affected and the last insert id. Retried only when
    /// it certainly did not reach the leader. With `prepared`, `sql` must hold one statement, kept prepared on the
    /// connection (PREPARE, then EXEC by its id), as for ``query(_:parameters:deadline:prepared:)``.
    ///
    /// - Throws: ``ClusterError`` `.outcomeUnknown` when the write may or may not have been committed,
    ///   `.failure`, `.unavailable` (it certainly did not run), `.invalidArgument`.
    public func exec(
        _ sql: String,
        parameters: [DqliteValue] = [],
        prepared: Bool = false
    ) throws(ClusterError) -> DqliteExecResult {
        try run(sql: sql, isWrite: true) { (pooled) throws(DqliteError) in
            try pooled.exec(sql, parameters: parameters, prepared: prepared, timedBy: self)
        }
    }

    /// Whether the first statement of `sql` only reads, found by preparing it (PREPARE, then FINALIZE; nothing runs)
    /// on a leader connection of this read client, where SQLiteService's `LeaderPolicy` denies every writing
    /// action when a statement is prepared: `true` when it prepares, `false` when the leader answers
    /// `SQLITE_AUTH` (the statement writes, or the policy refuses it anyway). Without that policy on the leader every
    /// statement prepares and the answer is always `true`: every node must register it before it starts.
    ///
    /// This is how a caller chooses between ``query(_:parameters:)`` and ``exec(_:parameters:)`` for SQL it cannot
    /// prepare itself, on a leader where a statement that writes must never be sent as a query on a writable
    /// connection: dqlite 1.11 then commits it outside Raft (the rows come back, the change is not replicated) and
    /// its next request aborts the process (`vfsFileShmLock: Assertion wal->n_tx == 0`, measured with
    /// `INSERT … RETURNING`). The answer reflects the committed schema: a statement on a table created inside a
    /// caller's open transaction fails here with "no such table"; send such statements with exec.
    ///
    /// - Throws: ``ClusterError`` `.invalidArgument` when the client is not a read client (``Options/queryOnly``
    ///   `true`), `.failure` when the leader refuses the statement otherwise (a syntax error, no such table),
    ///   `.unavailable`.
    public func isReadOnly(_ sql: String) throws(ClusterError) -> Bool {
        guard options.queryOnly == true else {
            throw ClusterError(
                kind: .invalidArgument,
                message: "isReadOnly needs a read client (Options.queryOnly true)",
                sql: sql
            )
        }
        return try run(sql: sql, isWrite: false) { (pooled) throws(DqliteError) -> Bool in
            do throws(DqliteError) {
                let statement = try pooled.connection.prepare(sql, database: pooled.database)
                try pooled.connection.finalize(statement)
                return true
            } catch {
                if error.kind == .failure, error.code & 0xff == Self.sqliteAuth {
                    return false
                }
                throw error
            }
        }
    }

    /// `SQLITE_AUTH`: the leader's authorizer denied the statement.
    private static let sqliteAuth: UInt64 = 23

    /// Runs `body` in a transaction on one leader connection: BEGIN (`BEGIN IMMEDIATE` when `immediate`, see
    /// ``beginTransaction(immediate:deadline:)``), the body's statements, COMMIT; ROLLBACK when the body throws.
    /// Finding the leader and BEGIN are retried within the call timeout (and until `deadline`, the caller's time
    /// limit, when it comes first: a BEGIN still meeting another connection's lock then is `SQLITE_BUSY`); nothing
    /// after.
    ///
    /// The body must not run BEGIN, COMMIT or ROLLBACK itself. A statement that fails with `.failure` leaves the
    /// transaction open (the body may go on, as with SQLite) unless SQLite rolled it back with the failure
    /// (``ClusterTransaction/isActive``); a broken connection ends it without a commit.
    ///
    /// - Throws: what `body` throws (after the rollback); ``ClusterError`` `.unavailable` when no leader took
    ///   the BEGIN or the connection broke before COMMIT was sent (nothing was committed), `.outcomeUnknown` when
    ///   COMMIT was sent and no answer came, `.failure` when the leader refused the COMMIT (rolled back).
    public func transaction<T>(
        immediate: Bool = false,
        deadline: ContinuousClock.Instant? = nil,
        _ body: (ClusterTransaction) throws -> T
    ) throws -> T {
        let transaction = try beginTransaction(immediate: immediate, deadline: deadline)
        let value: T
        do {
            value = try body(transaction)
        } catch {
            rollback(transaction)
            throw error
        }
        try commit(transaction)
        return value
    }

    /// Opens a transaction on a leader connection and returns it; end it with ``commit(_:)`` or ``rollback(_:)``.
    ///
    /// `immediate` sends `BEGIN IMMEDIATE`, which takes the leader's write lock at once: while another connection
    /// (another node's group or transaction) holds it, the BEGIN is answered `SQLITE_BUSY` having done nothing, and
    /// is asked again after a short pause (200 µs doubling to 2 ms, ``ClusterClientObserver/busyWaited()``) until
    /// `deadline`; the statements of the transaction then never meet the lock. Finding the leader is retried
    /// within the call timeout.
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when no leader took the BEGIN in time (nothing was changed),
    ///   `.failure` when the leader refused it (`SQLITE_BUSY` still at `deadline`).
    public func beginTransaction(
        immediate: Bool = false,
        deadline: ContinuousClock.Instant? = nil
    ) throws(ClusterError) -> ClusterTransaction {
        var limit = ContinuousClock.now + options.callTimeout
        if let deadline { limit = min(limit, deadline) }
        let pooled = try begin(immediate ? "BEGIN IMMEDIATE" : "BEGIN", deadline: limit)
        return ClusterTransaction(pooled, client: self)
    }

    /// Opens a transaction that lives across calls (an interactive transaction) with `beginSQL` (`BEGIN`,
    /// `BEGIN IMMEDIATE`, `BEGIN EXCLUSIVE`) on one leader connection, which it holds until
    /// ``ClusterTransaction/commit()`` or ``ClusterTransaction/rollback()``; as ``beginTransaction(immediate:deadline:)``
    /// otherwise.
    public func openTransaction(_ beginSQL: String = "BEGIN") throws(ClusterError) -> ClusterTransaction {
        let pooled = try begin(beginSQL, deadline: ContinuousClock.now + options.callTimeout)
        return ClusterTransaction(pooled, client: self)
    }

    /// Commits `transaction` (COMMIT: one Raft entry for all its changes) and returns its connection to the pool.
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when the transaction's connection broke before (nothing was
    ///   committed) or the leader refused the COMMIT unrun; `.outcomeUnknown` when COMMIT was sent and no answer
    ///   came; `.failure` when the leader refused the COMMIT (rolled back).
    public func commit(_ transaction: ClusterTransaction) throws(ClusterError) {
        let pooled = transaction.pooled
        guard transaction.isUsable, transaction.isActive else {
            if transaction.finish() {
                if transaction.isUsable { checkIn(pooled) } else { pooled.connection.close() }
            }
            throw ClusterError(
                kind: .unavailable,
                message: transaction.isUsable
                    ? "SQLite rolled the transaction back on the leader: nothing was committed"
                    : "the connection to the leader broke during the transaction: nothing was committed"
            )
        }
        guard transaction.finish() else {
            throw ClusterError(kind: .invalidArgument, message: "the transaction was already committed or rolled back")
        }
        do throws(DqliteError) {
            _ = try timed { () throws(DqliteError) in
                try pooled.connection.exec(sql: "COMMIT", database: pooled.database)
            }
        } catch {
            switch RetryPolicy.decide(after: error, isWrite: true) {
            case .retry:
                // Nothing of the COMMIT reached the leader (or it refused it unrun): the transaction ends with
                // the connection, uncommitted.
                pooled.connection.close()
                forgetLeader(generation: pooled.generation)
                throw ClusterError(.unavailable, error, sql: "COMMIT")
            case .fail(let kind, let keepConnection):
                if keepConnection, (try? pooled.connection.exec(sql: "ROLLBACK", database: pooled.database)) != nil {
                    checkIn(pooled)
                } else {
                    pooled.connection.close()
                }
                if kind == .outcomeUnknown {
                    count(\.outcomeUnknown) { $0.outcomeUnknown() }
                }
                throw ClusterError(kind, error, sql: "COMMIT")
            }
        }
        checkIn(pooled)
    }

    /// Rolls `transaction` back (ROLLBACK) and returns its connection to the pool; a connection that cannot roll
    /// back is closed, which ends the transaction on the leader as well.
    public func rollback(_ transaction: ClusterTransaction) {
        let pooled = transaction.pooled
        guard transaction.finish() else { return }
        guard transaction.isUsable else {
            pooled.connection.close()
            return
        }
        if !transaction.isActive
            || (try? pooled.connection.exec(sql: "ROLLBACK", database: pooled.database)) != nil
        {
            checkIn(pooled)
        } else {
            pooled.connection.close()
        }
    }

    /// `sql` (a BEGIN) on a leader connection, retried within the deadline: a BEGIN that failed changed nothing.
    private func begin(_ sql: String, deadline: ContinuousClock.Instant) throws(ClusterError) -> PooledConnection {
        var backoff = Backoff()
        var busyWait = Backoff.lockHeld
        var lastError: DqliteError?
        var pooled = try checkOut(deadline: deadline)
        while true {
            do throws(DqliteError) {
                _ = try timed { () throws(DqliteError) in
                    try pooled.connection.exec(sql: sql, database: pooled.database)
                }
                return pooled
            } catch {
                lastError = error
                if error.kind == .failure, error.code & 0xff == RetryPolicy.busyCode {
                    // Another connection holds the write lock: same connection, a short pause.
                    count(\.busyWaits) { $0.busyWaited() }
                    guard busyWait.wait(until: deadline) else {
                        checkIn(pooled)
                        throw ClusterError(.failure, error, sql: sql)
                    }
                    continue
                }
                if case .fail(let kind, let keepConnection) = RetryPolicy.decide(after: error, isWrite: false) {
                    if keepConnection {
                        checkIn(pooled)
                    } else {
                        pooled.connection.close()
                    }
                    throw ClusterError(kind, error, sql: sql)
                }
                pooled.connection.close()
                forgetLeader(generation: pooled.generation)
                count(\.retries) { $0.retried() }
            }
            guard backoff.wait(until: deadline) else { break }
            pooled = try checkOut(deadline: deadline)
        }
        throw unavailable(lastError)
    }

    /// One statement with the retry rules: check out, run, check in or close, decide. A read that times out at the
    /// caller's deadline ends there (see ``query(_:parameters:deadline:)``).
    private func run<T>(
        sql: String,
        isWrite: Bool,
        callerDeadline: ContinuousClock.Instant? = nil,
        _ request: (PooledConnection) throws(DqliteError) -> T
    ) throws(ClusterError) -> T {
        var deadline = ContinuousClock.now + options.callTimeout
        if let callerDeadline { deadline = min(deadline, callerDeadline) }
        var backoff = Backoff()
        var busyWait = Backoff.lockHeld
        var lastError: DqliteError?
        /// The caller's deadline has passed (a read only: a write's outcome cannot be given up on).
        func pastCallerDeadline() -> Bool {
            guard !isWrite, let callerDeadline else { return false }
            return ContinuousClock.now >= callerDeadline
        }
        func deadlineExceeded() -> ClusterError {
            ClusterError(
                kind: .deadlineExceeded,
                message: "the statement was not answered within the caller's time limit",
                sql: sql
            )
        }
        attempts: while true {
            // A read called with its time already up is not sent for nothing (a retry comes only while time is left).
            if pastCallerDeadline() { throw deadlineExceeded() }
            let pooled = try checkOut(deadline: deadline)
            do throws(DqliteError) {
                let result = try request(pooled)
                checkIn(pooled)
                return result
            } catch {
                lastError = error
                if error.kind == .timeout && pastCallerDeadline() {
                    // The statement reached the leader and is not answered in the caller's time: its answer may
                    // still come on this connection, which is closed; the leader itself is not in doubt.
                    pooled.connection.close()
                    throw deadlineExceeded()
                }
                if error.kind == .failure, error.code & 0xff == RetryPolicy.busyCode, pooled.connection.isOpen {
                    // The leader's write lock is another connection's for about one Raft round: ask again soon,
                    // on the same connection (the statement did not run).
                    checkIn(pooled)
                    count(\.busyWaits) { $0.busyWaited() }
                    guard busyWait.wait(until: deadline) else { break attempts }
                    continue attempts
                }
                switch RetryPolicy.decide(after: error, isWrite: isWrite) {
                case .retry(let forget):
                    if forget || !pooled.connection.isOpen {
                        pooled.connection.close()
                        forgetLeader(generation: pooled.generation)
                    } else {
                        checkIn(pooled)
                    }
                    count(\.retries) { $0.retried() }
                case .fail(let kind, let keepConnection):
                    if keepConnection && pooled.connection.isOpen {
                        checkIn(pooled)
                    } else {
                        pooled.connection.close()
                        if kind == .outcomeUnknown {
                            forgetLeader(generation: pooled.generation)
                        }
                    }
                    if kind == .outcomeUnknown {
                        count(\.outcomeUnknown) { $0.outcomeUnknown() }
                    }
                    throw ClusterError(kind, error, sql: sql)
                }
            }
            guard backoff.wait(until: deadline) else { break }
        }
        var error = unavailable(lastError)
        error.sql = sql
        throw error
    }

    /// A leader connection: an idle one that is still in step, else a new one to the known leader, else one
    /// found by asking the members. Retries until `deadline`.
    ///
    /// - Throws: ``ClusterError`` `.unavailable` when no leader was reached in time.
    func checkOut(deadline: ContinuousClock.Instant) throws(ClusterError) -> PooledConnection {
        var backoff = Backoff()
        var lastError: DqliteError?
        let locator = LeaderLocator(options: options.connection)
        repeat {
            while let pooled = popIdle() {
                if pooled.connection.isUsableWhenIdle() {
                    return pooled
                }
                // The node closed it: it stopped, or it is no longer the leader and dropped its clients.
                forgetLeader(generation: pooled.generation)
            }
            let (members, leader, generation) = state.withLock { ($0.members, $0.leader, $0.generation) }
            do throws(DqliteError) {
                if let leader {
                    let connection = try locator.open(leader.address, deadline: deadline)
                    return try opened(connection, leaderID: leader.id, generation: generation)
                }
                var known = members
                if let found = locator.connect(members: members, deadline: deadline, lastError: &lastError) {
                    // The leader's view of the members, so that the client can follow the leader to nodes it was
                    // not given.
                    if let nodes = try? found.connection.cluster() {
                        known += nodes.map(\.address).filter { !known.contains($0) }
                    }
                    let generation = adopt(leader: (found.id, found.address), members: known)
                    return try opened(found.connection, leaderID: found.id, generation: generation)
                }
            } catch {
                lastError = error
                forgetLeader(generation: generation)
            }
        } while backoff.wait(until: deadline)
        throw unavailable(lastError)
    }

    /// Returns a connection to the pool, unless the leader changed since it was opened or the pool is full.
    func checkIn(_ pooled: PooledConnection) {
        let kept = state.withLock { state in
            guard pooled.generation == state.generation, state.idle.count < options.maxIdleConnections else {
                return false
            }
            state.idle.append(pooled)
            return true
        }
        if !kept {
            pooled.connection.close()
        }
    }

    private func opened(
        _ connection: DqliteConnection,
        leaderID: UInt64,
        generation: UInt64
    ) throws(DqliteError) -> PooledConnection {
        do {
            let database = try connection.open(options.database)
            if let queryOnly = options.queryOnly {
                _ = try connection.exec(sql: "PRAGMA query_only = \(queryOnly ? 1 : 0)", database: database)
            }
            return PooledConnection(
                connection: connection,
                database: database,
                leaderID: leaderID,
                generation: generation
            )
        } catch {
            connection.close()
            throw error
        }
    }

    private func popIdle() -> PooledConnection? {
        state.withLock { state in
            while let pooled = state.idle.popLast() {
                if pooled.generation == state.generation {
                    return pooled
                }
                pooled.connection.close()
            }
            return nil
        }
    }

    /// Forgets the leader the connection of `generation` was opened to, unless a newer one is already known;
    /// closes the idle connections to it.
    private func forgetLeader(generation: UInt64) {
        let stale = state.withLock { state -> [PooledConnection] in
            guard state.generation == generation else { return [] }
            state.generation += 1
            state.leader = nil
            defer { state.idle.removeAll() }
            return state.idle
        }
        for pooled in stale {
            pooled.connection.close()
        }
    }

    /// Records the leader found; returns the generation its connections belong to.
    private func adopt(leader: (id: UInt64, address: String), members: [String]) -> UInt64 {
        let (generation, changed) = state.withLock { state -> (UInt64, (any ClusterClientObserver)??) in
            if let known = state.leader, known.id == leader.id, known.address == leader.address {
                return (state.generation, nil)
            }
            state.generation += 1
            state.leader = leader
            var changed: (any ClusterClientObserver)?? = nil
            if let last = state.lastLeaderID, last != leader.id {
                state.statistics.leaderChanges += 1
                changed = .some(state.observer)
            }
            state.lastLeaderID = leader.id
            state.members = members
            return (state.generation, changed)
        }
        if case .some(let observer) = changed {
            observer?.leaderChanged(to: leader.id)
        }
        return generation
    }

    /// Runs one request and reports its round trip when an answer came (rows, changes or the leader's FAILURE).
    func timed<T>(_ request: () throws(DqliteError) -> T) throws(DqliteError) -> T {
        let started = ContinuousClock.now
        do {
            let result = try request()
            recordRoundTrip(ContinuousClock.now - started)
            return result
        } catch {
            if error.kind == .failure {
                recordRoundTrip(ContinuousClock.now - started)
            }
            throw error
        }
    }

    private func recordRoundTrip(_ duration: Duration) {
        let observer = state.withLock { state in
            state.statistics.roundTrips += 1
            state.statistics.roundTripTime += duration
            return state.observer
        }
        observer?.roundTrip(duration)
    }

    /// Adds one to the statistic at `counter` and tells the observer.
    private func count(
        _ counter: WritableKeyPath<ClusterClientStatistics, UInt64>,
        _ tell: (any ClusterClientObserver) -> Void
    ) {
        let observer = state.withLock { state in
            state.statistics[keyPath: counter] += 1
            return state.observer
        }
        if let observer { tell(observer) }
    }

    private func unavailable(_ lastError: DqliteError?) -> ClusterError {
        ClusterError(
            kind: .unavailable,
            code: lastError?.code ?? 0,
            message: "no leader of the cluster served the request before its deadline (at most \(options.callTimeout))"
                + (lastError.map { ": \($0)" } ?? "")
        )
    }
}
