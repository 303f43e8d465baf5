/// A request of the dqlite wire protocol, version 1 (body schema 0).
///
/// Database ids come from the DB response to OPEN and statement ids from the STMT response to PREPARE; dqlite 1.11
/// serves one database per connection, whose id is 0.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Requests").
public enum DqliteRequest: Sendable, Hashable {
    /// LEADER: which node is the leader. Answered by SERVER.
    case leader
    /// CLIENT: registers the client. Answered by WELCOME.
    case client(id: UInt64)
    /// OPEN: opens a database by name (dqlite 1.11 ignores `flags` and `vfs`). Answered by DB.
    case open(name: String, flags: UInt64 = 0, vfs: String = "")
    /// PREPARE: prepares one statement. Answered by STMT.
    case prepare(database: UInt32, sql: String)
    /// EXEC: binds and runs a prepared statement. Answered by RESULT.
    case exec(database: UInt32, statement: UInt32, parameters: [DqliteValue])
    /// QUERY: binds and runs a prepared statement that yields rows. Answered by one or more ROWS.
    case query(database: UInt32, statement: UInt32, parameters: [DqliteValue])
    /// FINALIZE: releases a prepared statement. Answered by EMPTY.
    case finalize(database: UInt32, statement: UInt32)
    /// EXEC_SQL: runs SQL text, several statements allowed (the parameters bind the first). Answered by RESULT.
    case execSQL(database: UInt32, sql: String, parameters: [DqliteValue])
    /// QUERY_SQL: runs one statement of SQL text that yields rows. Answered by one or more ROWS.
    case querySQL(database: UInt32, sql: String, parameters: [DqliteValue])
    /// INTERRUPT: stops a query whose ROWS are still coming. Answered by EMPTY (after any ROWS in flight).
    case interrupt(database: UInt32)
    /// ADD: adds a node to the cluster as a spare (leader only). Answered by EMPTY.
    case add(id: UInt64, address: String)
    /// ASSIGN: changes a node's role (leader only). Answered by EMPTY.
    case assign(id: UInt64, role: DqliteRole)
    /// REMOVE: removes a node from the cluster (leader only). Answered by EMPTY.
    case remove(id: UInt64)
    /// DUMP: the database file and its WAL. Answered by FILES.
    case dump(name: String)
    /// CLUSTER: the members, with their roles (format 1). Answered by SERVERS.
    case cluster
    /// TRANSFER: hands leadership to another voter (leader only). Answered by EMPTY.
    case transfer(id: UInt64)

    /// The request's type code (dqlite's `DQLITE_REQUEST_*`).
    public var typeCode: UInt8 {
        switch self {
        case .leader: 0
        case .client: 1
        case .open: 3
        case .prepare: 4
        case .exec: 5
        case .query: 6
        case .finalize: 7
        case .execSQL: 8
        case .querySQL: 9
        case .interrupt: 10
        case .add: 12
        case .assign: 13
        case .remove: 14
        case .dump: 15
        case .cluster: 16
        case .transfer: 17
        }
    }

    /// The request's name in the protocol documentation, for errors and logs.
    public var name: String {
        switch self {
        case .leader: "LEADER"
        case .client: "CLIENT"
        case .open: "OPEN"
        case .prepare: "PREPARE"
        case .exec: "EXEC"
        case .query: "QUERY"
        case .finalize: "FINALIZE"
        case .execSQL: "EXEC_SQL"
        case .querySQL: "QUERY_SQL"
        case .interrupt: "INTERRUPT"
        case .add: "ADD"
        case .assign: "ASSIGN"
        case .remove: "REMOVE"
        case .dump: "DUMP"
        case .cluster: "CLUSTER"
        case .transfer: "TRANSFER"
        }
    }

    /// The SQL text the request carries, if any (never its parameters).
    public var sql: String? {
        switch self {
        case .prepare(_, let sql), .execSQL(_, let sql, _), .querySQL(_, let sql, _): sql
        default: nil
        }
    }

    /// The whole message: header, then body.
    ///
    /// - Throws: ``DqliteError`` `.invalidArgument` when a text contains NUL, there are more than 255 parameters,
    ///   or a parameter is a ``DqliteValue/unixTime(_:)``. The error names the parameter, never its value.
    public func encoded() throws(DqliteError) -> [UInt8] {
        var body = WireWriter()
        do {
            try encodeBody(to: &body)
        } catch {
            var error = error
            error.sql = sql
            throw error
        }
        let header = DqliteMessageHeader(words: UInt32(body.count / 8), type: typeCode)
        return header.encoded + body.bytes
    }

    private func encodeBody(to body: inout WireWriter) throws(DqliteError) {
        switch self {
        case .leader:
            body.writeUInt64(0)
        case .client(let id), .remove(let id), .transfer(let id):
            body.writeUInt64(id)
        case .open(let name, let flags, let vfs):
            try body.writeText(name, "the database name")
            body.writeUInt64(flags)
            try body.writeText(vfs, "the VFS name")
        case .prepare(let database, let sql):
            body.writeUInt64(UInt64(database))
            try body.writeText(sql, "the SQL text")
        case .exec(let database, let statement, let parameters), .query(let database, let statement, let parameters):
            body.writeUInt32(database)
            body.writeUInt32(statement)
            try WireTuple.writeParameters(parameters, to: &body)
        case .finalize(let database, let statement):
            body.writeUInt32(database)
            body.writeUInt32(statement)
        case .execSQL(let database, let sql, let parameters), .querySQL(let database, let sql, let parameters):
            body.writeUInt64(UInt64(database))
            try body.writeText(sql, "the SQL text")
            try WireTuple.writeParameters(parameters, to: &body)
        case .interrupt(let database):
            body.writeUInt64(UInt64(database))
        case .add(let id, let address):
            body.writeUInt64(id)
            try body.writeText(address, "the node address")
        case .assign(let id, let role):
            body.writeUInt64(id)
            body.writeUInt64(role.rawValue)
        case .dump(let name):
            try body.writeText(name, "the database name")
        case .cluster:
            // Format 1: each node with its role.
            body.writeUInt64(1)
        }
    }
}
