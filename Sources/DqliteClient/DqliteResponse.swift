/// A response of the dqlite wire protocol, version 1.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol> ("Responses").
public enum DqliteResponse: Sendable, Hashable {
    /// FAILURE: the request failed with the server's code and message.
    case failure(code: UInt64, message: String)
    /// SERVER: the leader's id and address (0 and empty when this node knows no leader).
    case server(id: UInt64, address: String)
    /// WELCOME: the answer to CLIENT.
    case welcome(heartbeatTimeout: UInt64)
    /// SERVERS: the members of the cluster (CLUSTER format 1).
    case servers([DqliteNodeInfo])
    /// DB: the id of the database OPEN opened.
    case database(id: UInt32)
    /// STMT: the ids of a prepared statement and its parameter count.
    case statement(database: UInt32, id: UInt32, parameterCount: UInt64)
    /// RESULT: the outcome of EXEC or EXEC_SQL.
    case result(DqliteExecResult)
    /// ROWS: one part of a result set.
    case rows(DqliteRows)
    /// EMPTY: success without data.
    case empty
    /// FILES: the files of DUMP.
    case files([DqliteFile])

    /// The response's type code (dqlite's `DQLITE_RESPONSE_*`).
    public var typeCode: UInt8 {
        switch self {
        case .failure: 0
        case .server: 1
        case .welcome: 2
        case .servers: 3
        case .database: 4
        case .statement: 5
        case .result: 6
        case .rows: 7
        case .empty: 8
        case .files: 9
        }
    }

    /// Decodes a whole message: header, then exactly the body it announces.
    ///
    /// - Throws: ``DqliteError`` `.tooLarge` when the header announces more than `limits.maxMessageBytes`,
    ///   `.protocolViolation` when the message is truncated, has bytes left over, or is malformed.
    public static func decode(message: [UInt8], limits: DqliteLimits = DqliteLimits()) throws(DqliteError) -> Self {
        let header = try DqliteMessageHeader(decoding: message)
        guard header.bodyBytes <= limits.maxMessageBytes else {
            throw DqliteError(
                kind: .tooLarge,
                message: "a message of \(header.bodyBytes) bytes exceeds the limit of \(limits.maxMessageBytes)"
            )
        }
        guard message.count == DqliteMessageHeader.size + header.bodyBytes else {
            throw .truncated("the body (\(header.bodyBytes) bytes announced, \(message.count - 8) given)")
        }
        return try decode(type: header.type, body: Array(message.dropFirst(DqliteMessageHeader.size)))
    }

    /// Decodes a body of the given type; the body must be consumed exactly.
    ///
    /// - Throws: ``DqliteError`` `.protocolViolation` for an unknown type, a truncated body, or bytes left over.
    public static func decode(type: UInt8, body: [UInt8]) throws(DqliteError) -> Self {
        var reader = WireReader(body)
        let response = try decodeFields(type: type, from: &reader)
        guard reader.isAtEnd else {
            if type == 0, let failure = decodeFailureAfterColumns(body) {
                return failure
            }
            throw .violation("\(reader.remaining) bytes left over after a response of type \(type)")
        }
        return response
    }

    /// A failure that dqlite 1.11 wrote after the start of a ROWS response, or `nil` when `body` is not that.
    ///
    /// When a statement run by QUERY or QUERY_SQL fails at a step (a run-time error such as `integer overflow`,
    /// `SQLITE_TOOBIG`, `SQLITE_READONLY`), dqlite 1.11 has already put the column count, the names and the rows
    /// stepped so far in the response buffer (`query__batch` in `src/query.c`), appends the failure to them and
    /// sends it all as a FAILURE. The server is done with the statement, so the connection stays usable.
    ///
    /// The body must start with a column header; the failure is the word-aligned code (non-zero, at most 24 bits:
    /// an SQLite extended code) and message that end the body exactly. It is found from the front: before the
    /// real code word, the zero bytes of that word end any candidate message early; after it, the words of the
    /// message are not codes.
    static func decodeFailureAfterColumns(_ body: [UInt8]) -> Self? {
        var header = WireReader(body)
        guard let count = try? header.readUInt64("the column count"), count > 0,
            count <= UInt64(header.remaining / 8)
        else {
            return nil
        }
        for _ in 0..<count {
            guard (try? header.readText("a column name")) != nil else { return nil }
        }
        var offset = body.count - header.remaining
        while offset + 16 <= body.count {
            // A reader from this word on over the same array: copying the rest for each candidate made a long
            // body cost time quadratic in its length.
            var reader = WireReader(body, from: offset)
            if let code = try? reader.readUInt64("the failure code"), code > 0, code < 1 << 24,
                let message = try? reader.readText("the failure message"), !message.isEmpty, reader.isAtEnd
            {
                return .failure(code: code, message: message)
            }
            offset += 8
        }
        return nil
    }

    /// The whole message: header, then body (as the server writes it; used by tests and fakes).
    public func encoded() throws(DqliteError) -> [UInt8] {
        var body = WireWriter()
        try encodeBody(to: &body)
        let header = DqliteMessageHeader(words: UInt32(body.count / 8), type: typeCode)
        return header.encoded + body.bytes
    }

    private static func decodeFields(type: UInt8, from reader: inout WireReader) throws(DqliteError) -> Self {
        switch type {
        case 0:
            let code = try reader.readUInt64("the failure code")
            return .failure(code: code, message: try reader.readText("the failure message"))
        case 1:
            let id = try reader.readUInt64("the leader id")
            return .server(id: id, address: try reader.readText("the leader address"))
        case 2:
            return .welcome(heartbeatTimeout: try reader.readUInt64("the heartbeat timeout"))
        case 3:
            return .servers(try decodeServers(from: &reader))
        case 4:
            let id = try reader.readUInt32("the database id")
            _ = try reader.readUInt32("the database id padding")
            return .database(id: id)
        case 5:
            let database = try reader.readUInt32("the statement's database id")
            let id = try reader.readUInt32("the statement id")
            return .statement(database: database, id: id, parameterCount: try reader.readUInt64("the parameter count"))
        case 6:
            let lastInsertID = Int64(bitPattern: try reader.readUInt64("the last insert id"))
            let rowsAffected = try reader.readUInt64("the rows affected")
            return .result(DqliteExecResult(lastInsertID: lastInsertID, rowsAffected: rowsAffected))
        case 7:
            return .rows(try DqliteRows.decode(from: &reader))
        case 8:
            _ = try reader.readUInt64("the empty response")
            return .empty
        case 9:
            return .files(try decodeFiles(from: &reader))
        default:
            throw .violation("unknown response type \(type)")
        }
    }

    private static func decodeServers(from reader: inout WireReader) throws(DqliteError) -> [DqliteNodeInfo] {
        let count = try reader.readUInt64("the node count")
        // A node takes at least three words (id, address, role): a larger count is not allocated.
        guard count <= UInt64(reader.remaining / 24) else { throw .truncated("the nodes (\(count) announced)") }
        var nodes: [DqliteNodeInfo] = []
        nodes.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let id = try reader.readUInt64("the id of node \(index + 1)")
            let address = try reader.readText("the address of node \(index + 1)")
            let code = try reader.readUInt64("the role of node \(index + 1)")
            guard let role = DqliteRole(rawValue: code) else {
                throw .violation("node \(index + 1) has the unknown role \(code)")
            }
            nodes.append(DqliteNodeInfo(id: id, address: address, role: role))
        }
        return nodes
    }

    private static func decodeFiles(from reader: inout WireReader) throws(DqliteError) -> [DqliteFile] {
        let count = try reader.readUInt64("the file count")
        // A file takes at least two words (name, length): a larger count is not allocated.
        guard count <= UInt64(reader.remaining / 16) else { throw .truncated("the files (\(count) announced)") }
        var files: [DqliteFile] = []
        for index in 0..<Int(count) {
            let name = try reader.readText("the name of file \(index + 1)")
            files.append(DqliteFile(name: name, bytes: try reader.readBlob("the content of file \(index + 1)")))
        }
        return files
    }

    private func encodeBody(to body: inout WireWriter) throws(DqliteError) {
        switch self {
        case .failure(let code, let message):
            body.writeUInt64(code)
            try body.writeText(message, "the failure message")
        case .server(let id, let address):
            body.writeUInt64(id)
            try body.writeText(address, "the leader address")
        case .welcome(let heartbeatTimeout):
            body.writeUInt64(heartbeatTimeout)
        case .servers(let nodes):
            body.writeUInt64(UInt64(nodes.count))
            for node in nodes {
                body.writeUInt64(node.id)
                try body.writeText(node.address, "a node address")
                body.writeUInt64(node.role.rawValue)
            }
        case .database(let id):
            body.writeUInt32(id)
            body.writeUInt32(0)
        case .statement(let database, let id, let parameterCount):
            body.writeUInt32(database)
            body.writeUInt32(id)
            body.writeUInt64(parameterCount)
        case .result(let result):
            body.writeUInt64(UInt64(bitPattern: result.lastInsertID))
            body.writeUInt64(result.rowsAffected)
        case .rows(let rows):
            try rows.encode(to: &body)
        case .empty:
            body.writeUInt64(0)
        case .files(let files):
            body.writeUInt64(UInt64(files.count))
            for file in files {
                try body.writeText(file.name, "a file name")
                body.writeBlob(file.bytes)
            }
        }
    }
}
