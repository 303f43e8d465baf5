/// A client connection to one dqlite node, speaking the wire protocol (version 1) over TCP.
///
/// Every method sends one request and blocks the calling thread until its whole answer has arrived (all ROWS parts
/// of a query), the server answered FAILURE (thrown as ``DqliteError`` `.failure`; the connection stays usable), or
/// ``Options/requestTimeout`` passed. Any other error (timeout, I/O, a message that breaks the protocol or the
/// ``DqliteLimits``) closes the connection, since request and response would no longer line up; later calls throw
/// `.connectionClosed`.
///
/// Not `Sendable`: a connection carries one request at a time (dqlite serves a connection's requests in order) and
/// must be used by one thread at a time, like an SQLite connection.
///
/// Statements that read or write the database must reach the leader: other nodes answer FAILURE with
/// ``DqliteError/notLeaderCode``; ``leader()`` tells where the leader is.
///
/// Related dqlite documentation: <https://canonical.com/dqlite/docs/reference/wire-protocol>
public final class DqliteConnection {
    /// Time limits and size limits of a connection.
    public struct Options: Sendable, Hashable {
        /// The longest wait for the TCP connection to be established.
        public var connectTimeout: Duration
        /// The longest time one request may take, from its first byte sent to the last byte of its answer.
        public var requestTimeout: Duration
        public var limits: DqliteLimits

        public init(
            connectTimeout: Duration = .seconds(5),
            requestTimeout: Duration = .seconds(30),
            limits: DqliteLimits = DqliteLimits()
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.limits = limits
        }
    }

    /// The protocol version word sent first on every connection (`DQLITE_PROTOCOL_VERSION`).
    public static let protocolVersion: UInt64 = 1

    /// The node's address, `"<host>:<port>"`.
    public let address: String
    public let options: Options
    private var socket: TCPSocket?

    /// Connects to the node at `address` and sends the protocol version (the server answers nothing to it; it
    /// closes the connection on a version it does not speak).
    ///
    /// - Throws: ``DqliteError`` `.invalidArgument` for an address that is not `<IP literal>:<port>`, `.timeout`,
    ///   `.io` (connection refused, ...).
    public init(address: String, options: Options = Options()) throws(DqliteError) {
        self.address = address
        self.options = options
        let socket = try TCPSocket.connect(to: address, deadline: .now + options.connectTimeout)
        var handshake = WireWriter()
        handshake.writeUInt64(Self.protocolVersion)
        try socket.write(handshake.bytes, deadline: .now + options.requestTimeout)
        self.socket = socket
    }

    /// Whether the connection is still open (not closed by ``close()`` or by an error).
    public var isOpen: Bool {
        socket != nil
    }

    /// Whether an idle connection can carry a request: it is open, and the server has neither closed it nor sent
    /// anything unasked (a zero-timeout `poll(2)`, no wait). Closes it when not.
    ///
    /// A node that stops closes its client connections; a request written to such a connection before its end was
    /// noticed would fail with an unknown outcome, so a pool checks its idle connections with this first.
    public func isUsableWhenIdle() -> Bool {
        guard let socket, !socket.hasInputOrHangUp() else {
            close()
            return false
        }
        return true
    }

    /// Closes the connection; the server then releases its prepared statements and its database handle.
    public func close() {
        socket?.close()
        socket = nil
    }

    /// Sends `request` and returns the server's first response as is, FAILURE included.
    ///
    /// For QUERY and QUERY_SQL, further ROWS parts follow while the last one ``DqliteRows/hasMore``: read them with
    /// ``nextResponse()`` before sending another request. The typed methods do all this; this is the protocol.
    public func send(_ request: DqliteRequest) throws(DqliteError) -> DqliteResponse {
        let message = try request.encoded()
        let socket = try openSocket()
        return try closingOnError(sql: request.sql) { () throws(DqliteError) in
            let deadline = ContinuousClock.now + options.requestTimeout
            try socket.write(message, deadline: deadline)
            return try readResponse(from: socket, deadline: deadline).response
        }
    }

    /// Reads one more response (the next ROWS part of a query) within a fresh ``Options/requestTimeout``.
    public func nextResponse() throws(DqliteError) -> DqliteResponse {
        let socket = try openSocket()
        return try closingOnError(sql: nil) { () throws(DqliteError) in
            try readResponse(from: socket, deadline: .now + options.requestTimeout).response
        }
    }

    /// Sends `request`, reads one response and hands it to `handle`; a FAILURE becomes a thrown `.failure`, a
    /// response `handle` does not expect (it returns `nil`) a `.protocolViolation` that closes the connection.
    func call<Result>(
        _ request: DqliteRequest,
        _ handle: (DqliteResponse) -> Result?
    ) throws(DqliteError) -> Result {
        let response = try send(request)
        if case .failure(let code, let message) = response {
            throw DqliteError(kind: .failure, code: code, message: message, sql: request.sql)
        }
        guard let result = handle(response) else {
            throw unexpected(response, to: request)
        }
        return result
    }

    /// Sends a QUERY or QUERY_SQL and gathers every ROWS part into one result, within one request deadline (or
    /// `deadline`, when it comes first).
    func collectRows(
        _ request: DqliteRequest,
        deadline callerDeadline: ContinuousClock.Instant? = nil
    ) throws(DqliteError) -> DqliteRows {
        try collectRows([request], deadline: callerDeadline)[0].get()
    }

    /// Sends QUERY or QUERY_SQL requests in one write and gathers each one's ROWS parts, in order, within one
    /// request deadline (or `deadline`, when it comes first): one result per request, a FAILURE answer as its
    /// `.failure` (the connection stays in step). Between two answers this client acknowledges at once
    /// (``TCPSocket/acknowledgeNow()``): dqlite writes each answer apart, and the next one would otherwise wait for
    /// this client's delayed acknowledgement under Nagle's algorithm.
    ///
    /// - Throws: what breaks the connection (it is then closed): `.timeout`, `.io`, `.tooLarge`,
    ///   `.protocolViolation`.
    public func collectRows(
        _ requests: [DqliteRequest],
        deadline callerDeadline: ContinuousClock.Instant? = nil
    ) throws(DqliteError) -> [Swift.Result<DqliteRows, DqliteError>] {
        var message: [UInt8] = []
        for request in requests {
            message += try request.encoded()
        }
        let socket = try openSocket()
        let limit = options.limits.maxResultBytes
        return try closingOnError(sql: requests.count == 1 ? requests[0].sql : nil) {
            () throws(DqliteError) -> [Swift.Result<DqliteRows, DqliteError>] in
            var deadline = ContinuousClock.now + options.requestTimeout
            if let callerDeadline { deadline = min(deadline, callerDeadline) }
            try socket.write(message, deadline: deadline)
            var results: [Swift.Result<DqliteRows, DqliteError>] = []
            for (index, request) in requests.enumerated() {
                if index > 0 { socket.acknowledgeNow() }
                results.append(try readRows(answering: request, from: socket, limit: limit, deadline: deadline))
            }
            return results
        }
    }

    /// Reads every ROWS part of one query's answer (or its FAILURE) from `socket`.
    private func readRows(
        answering request: DqliteRequest,
        from socket: TCPSocket,
        limit: Int,
        deadline: ContinuousClock.Instant
    ) throws(DqliteError) -> Swift.Result<DqliteRows, DqliteError> {
        var result: DqliteRows?
        var total = 0
        while true {
            let (response, bodyBytes) = try readResponse(from: socket, deadline: deadline)
            total += bodyBytes
            switch response {
            case .rows(let part):
                guard total <= limit else {
                    throw DqliteError(
                        kind: .tooLarge,
                        message: "the result set exceeds the limit of \(limit) bytes",
                        sql: request.sql
                    )
                }
                if let columns = result?.columns {
                    guard columns == part.columns else {
                        throw DqliteError.violation("a ROWS part changed the columns of its result set")
                    }
                    // In place: a copy taken out and put back would copy every row gathered so far, per part.
                    result?.rows += part.rows
                } else {
                    result = part
                }
                if !part.hasMore {
                    result?.hasMore = false
                    return .success(result!)
                }
            case .failure(let code, let failureMessage):
                // The query ended on the server (a step failed): the connection is still in step.
                return .failure(DqliteError(kind: .failure, code: code, message: failureMessage, sql: request.sql))
            default:
                throw unexpected(response, to: request)
            }
        }
    }

    /// QUERY_SQL whose ROWS parts are handed to `eachPart` as they arrive, none gathered: for a result sent on as it
    /// is read. While `eachPart` runs (it may block) the rest of the result waits on the leader, whose statement
    /// (and read transaction) stays open; the size limit is then that of one message. Each read waits until
    /// `deadline`.
    ///
    /// - Throws: `DqliteError` as ``query(sql:parameters:database:deadline:)`` (a FAILURE part way, after some
    ///   parts, leaves the connection in step), or what `eachPart` throws: the connection is then closed (the rest
    ///   of the result is still on its way).
    public func query(
        sql: String,
        parameters: [DqliteValue] = [],
        database: UInt32,
        deadline: ContinuousClock.Instant,
        eachPart: (DqliteRows) throws -> Void
    ) throws {
        let request = DqliteRequest.querySQL(database: database, sql: sql, parameters: parameters)
        let message = try request.encoded()
        let socket = try openSocket()
        var columns: [String]?
        do {
            try socket.write(message, deadline: deadline)
            while true {
                let (response, _) = try readResponse(from: socket, deadline: deadline)
                switch response {
                case .rows(let part):
                    if let columns {
                        guard columns == part.columns else {
                            throw DqliteError.violation("a ROWS part changed the columns of its result set")
                        }
                    } else {
                        columns = part.columns
                    }
                    try eachPart(part)
                    if !part.hasMore { return }
                case .failure(let code, let failureMessage):
                    // The query ended on the server (a step failed): the connection is still in step.
                    throw DqliteError(kind: .failure, code: code, message: failureMessage, sql: sql)
                default:
                    throw unexpected(response, to: request)
                }
            }
        } catch let error as DqliteError where error.kind == .failure && error.sql == sql {
            throw error
        } catch {
            close()
            if var error = error as? DqliteError {
                if error.sql == nil { error.sql = sql }
                throw error
            }
            throw error
        }
    }

    private func openSocket() throws(DqliteError) -> TCPSocket {
        guard let socket else {
            throw DqliteError(
                kind: .connectionClosed,
                message: "the dqlite connection to \(address) is closed",
                requestNotSent: true
            )
        }
        return socket
    }

    /// Runs `body`; any error it throws leaves the stream in an unknown place, so the connection is closed.
    private func closingOnError<T>(
        sql: String?,
        _ body: () throws(DqliteError) -> T
    ) throws(DqliteError) -> T {
        do {
            return try body()
        } catch {
            close()
            var error = error
            if error.sql == nil {
                error.sql = sql
            }
            throw error
        }
    }

    private func readResponse(
        from socket: TCPSocket,
        deadline: ContinuousClock.Instant
    ) throws(DqliteError) -> (response: DqliteResponse, bodyBytes: Int) {
        let header = try DqliteMessageHeader(
            decoding: try socket.read(exactly: DqliteMessageHeader.size, deadline: deadline)
        )
        let limit = options.limits.maxMessageBytes
        guard header.bodyBytes <= limit else {
            throw DqliteError(
                kind: .tooLarge,
                message: "a message of \(header.bodyBytes) bytes exceeds the limit of \(limit)"
            )
        }
        let body = try socket.read(exactly: header.bodyBytes, deadline: deadline)
        return (try DqliteResponse.decode(type: header.type, body: body), header.bodyBytes)
    }

    private func unexpected(_ response: DqliteResponse, to request: DqliteRequest) -> DqliteError {
        close()
        return DqliteError(
            kind: .protocolViolation,
            message: "unexpected response of type \(response.typeCode) to \(request.name)",
            sql: request.sql
        )
    }
}
