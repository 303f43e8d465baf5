/// The requests of the protocol as typed calls.
extension DqliteConnection {
    /// LEADER: the leader this node knows, or `nil` when it knows none (an election is under way, or the node is
    /// not a voter).
    public func leader() throws(DqliteError) -> (id: UInt64, address: String)? {
        try call(.leader) { response in
            guard case .server(let id, let address) = response else { return nil }
            return .some(id == 0 && address.isEmpty ? nil : (id, address))
        }
    }

    /// CLIENT: registers this client with the node; returns the server's heartbeat timeout in milliseconds.
    public func registerClient(id: UInt64) throws(DqliteError) -> UInt64 {
        try call(.client(id: id)) { response in
            guard case .welcome(let timeout) = response else { return nil }
            return timeout
        }
    }

    /// OPEN: opens (creating it if needed) the database `name` for this connection; returns its id.
    ///
    /// dqlite 1.11 allows one database per connection: a second OPEN fails with `SQLITE_BUSY`.
    public func open(_ name: String) throws(DqliteError) -> UInt32 {
        try call(.open(name: name)) { response in
            guard case .database(let id) = response else { return nil }
            return id
        }
    }

    /// PREPARE: prepares the first statement of `sql`.
    public func prepare(_ sql: String, database: UInt32) throws(DqliteError) -> DqliteStatement {
        try call(.prepare(database: database, sql: sql)) { response in
            guard case .statement(let database, let id, let count) = response else { return nil }
            return DqliteStatement(database: database, id: id, parameterCount: count)
        }
    }

    /// EXEC: binds `parameters` to a prepared statement and runs it (on the leader, through Raft for a write).
    public func exec(
        _ statement: DqliteStatement,
        parameters: [DqliteValue] = []
    ) throws(DqliteError) -> DqliteExecResult {
        try call(.exec(database: statement.database, statement: statement.id, parameters: parameters)) { response in
            guard case .result(let result) = response else { return nil }
            return result
        }
    }

    /// QUERY: binds `parameters` to a prepared statement and returns all its rows, within the request timeout or
    /// `deadline`, whichever comes first (as ``query(sql:parameters:database:deadline:)``).
    public func query(
        _ statement: DqliteStatement,
        parameters: [DqliteValue] = [],
        deadline: ContinuousClock.Instant? = nil
    ) throws(DqliteError) -> DqliteRows {
        try collectRows(
            .query(database: statement.database, statement: statement.id, parameters: parameters),
            deadline: deadline
        )
    }

    /// FINALIZE: releases a prepared statement.
    public func finalize(_ statement: DqliteStatement) throws(DqliteError) {
        try call(.finalize(database: statement.database, statement: statement.id)) { response -> Void? in
            guard case .empty = response else { return nil }
            return ()
        }
    }

    /// EXEC_SQL: runs `sql`, which may hold several statements (`parameters` bind the first).
    public func exec(
        sql: String,
        parameters: [DqliteValue] = [],
        database: UInt32
    ) throws(DqliteError) -> DqliteExecResult {
        try call(.execSQL(database: database, sql: sql, parameters: parameters)) { response in
            guard case .result(let result) = response else { return nil }
            return result
        }
    }

    /// QUERY_SQL: runs one statement of `sql` and returns all its rows, within the request timeout or `deadline`,
    /// whichever comes first (past it: `.timeout`, and the connection is closed, as the rows may still come).
    public func query(
        sql: String,
        parameters: [DqliteValue] = [],
        database: UInt32,
        deadline: ContinuousClock.Instant? = nil
    ) throws(DqliteError) -> DqliteRows {
        try collectRows(.querySQL(database: database, sql: sql, parameters: parameters), deadline: deadline)
    }

    /// INTERRUPT: asks the server to stop a query; returns once it answered EMPTY (ROWS still in flight are
    /// read and dropped first).
    ///
    /// dqlite 1.11 reads the next request only after a query's last ROWS part was written, so between two calls
    /// of this connection there is nothing to interrupt and the server answers EMPTY at once.
    public func interrupt(database: UInt32) throws(DqliteError) {
        var response = try send(.interrupt(database: database))
        while true {
            switch response {
            case .empty:
                return
            case .rows:
                response = try nextResponse()
            case .failure(let code, let message):
                throw DqliteError(kind: .failure, code: code, message: message)
            default:
                close()
                throw DqliteError(
                    kind: .protocolViolation,
                    message: "unexpected response of type \(response.typeCode) to INTERRUPT"
                )
            }
        }
    }
}
