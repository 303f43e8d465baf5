public import HTTPServer
public import Logging
public import SQLiteEngine
import Synchronization

/// The HTTP/JSON API of the contract (`shared/API.md`) over one `DatabasePool`.
///
/// Reads (`POST /query` and the GET endpoints) run on the pool's read-only
/// reader connections, concurrently with writes; `/update`, `/batch` and
/// `/transaction` run on its single writer, one request at a time.
public final class SQLiteService: HTTPHandler {
    /// The product version reported by `GET /health`.
    public let version: String
    let pool: DatabasePool
    let logger: Logger
    private let state: Mutex<(limits: ServiceLimits, available: Bool)>
    private let operationalOptions: Mutex<ServiceOptions>
    /// Held while a `POST /backup` runs, so that backups run one at a time.
    let backupSerializer = Mutex<Void>(())
    /// The accepted bearer tokens; nil when authentication is off (see ``setTokens(_:)``).
    let tokens = Mutex<TokenStore?>(nil)

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - pool: The database; its connections must have been prepared with
    ///     ``SQLiteService/prepareConnection(_:role:limits:)``.
    ///   - limits: Request limits; may be changed later with ``setLimits(_:)``.
    ///   - version: Reported by `GET /health`.
    ///   - options: Backups, request log and metrics; may be changed later with ``setOptions(_:)``.
    public init(
        pool: DatabasePool,
        limits: ServiceLimits = ServiceLimits(),
        version: String,
        logger: Logger,
        options: ServiceOptions = ServiceOptions()
    ) {
        self.pool = pool
        self.version = version
        self.logger = logger
        self.state = Mutex((limits, false))
        self.operationalOptions = Mutex(options)
    }

    /// The limits in force.
    public var limits: ServiceLimits { state.withLock { $0.limits } }

    /// Replaces the limits; requests that start afterwards use the new ones.
    public func setLimits(_ limits: ServiceLimits) {
        state.withLock { $0.limits = limits }
    }

    /// The operational options in force.
    public var options: ServiceOptions { operationalOptions.withLock { $0 } }

    /// Replaces the operational options (a reload); requests that start afterwards use the new ones.
    public func setOptions(_ options: ServiceOptions) {
        operationalOptions.withLock { $0 = options }
    }

    /// Whether `/health` reports ok; false while starting and shutting down.
    public var isAvailable: Bool {
        get { state.withLock { $0.available } }
        set { state.withLock { $0.available = newValue } }
    }

    /// Applies the service's SQL policy and limits to a new connection.
    ///
    /// Call it from the pool's `prepareDatabase` hook, so that it runs once for
    /// the writer and once for each reader as it opens.
    public static func prepareConnection(_ db: Database, role: ConnectionRole, limits: ServiceLimits) {
        _ = db.setLimit(.attached, 0)
        _ = db.setLimit(.sqlLength, limits.maxSQLLength)
        _ = db.setLimit(.length, limits.maxValueLength)
        _ = db.setLimit(.exprDepth, limits.maxExpressionDepth)
        _ = db.setLimit(.variableNumber, limits.maxParameters)
        _ = db.setLimit(.triggerDepth, 100)
        _ = db.setLimit(.likePatternLength, limits.maxLikePatternLength)
        SQLPolicy.install(on: db, role: role == .writer ? .writer : .reader)
        do {
            try FunctionGuard.install(on: db, maxValueLength: limits.maxValueLength)
        } catch {
            // Fail closed: a connection without the guards would let one call run for minutes.
            preconditionFailure("cannot install the SQL function guards: \(error)")
        }
    }

    /// Which pool connection is being prepared.
    public enum ConnectionRole: Sendable {
        case writer
        case reader
    }

    // MARK: HTTPHandler

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        let handled = respond(to: request)
        observe(
            request,
            response: handled.response,
            errorCode: handled.errorCode,
            tokenName: handled.tokenName,
            duration: ContinuousClock.now - started
        )
        return handled.response
    }

    /// Authenticates, routes and answers `request`; the result also names the token that was used, for the request
    /// log line (a per-request value, so it travels with the response rather than in shared state).
    func respond(to request: HTTPRequest) -> ServiceResponse {
        var tokenName: String?
        do {
            tokenName = try authenticate(request)
            return ServiceResponse(response: try route(request), tokenName: tokenName)
        } catch {
            if error.status >= 500 {
                logger.error(
                    "request failed",
                    metadata: ["path": "\(request.path)", "code": "\(error.code)", "token": "\(tokenName ?? "-")"]
                )
            }
            return ServiceResponse(response: Self.errorResponse(error), tokenName: tokenName, errorCode: error.code)
        }
    }

    private func route(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let path = request.path
        switch path {
        case "/query", "/update", "/batch", "/transaction":
            guard request.method == "POST" else { throw .methodNotAllowed(allow: ["POST"]) }
            try JSONContentType.check(request.headers["content-type"])
            let limits = self.limits
            switch path {
            case "/query": return try query(request.body, limits: limits)
            case "/update": return try update(request.body, limits: limits)
            case "/batch": return try batch(request.body, limits: limits)
            default: return try transaction(request.body, limits: limits)
            }
        case "/health":
            try Self.requireGet(request)
            return health()
        case "/schema":
            try Self.requireGet(request)
            return try schema()
        case "/metrics":
            try Self.requireGet(request)
            return try metricsResponse()
        case "/backup":
            guard request.method == "POST" else { throw .methodNotAllowed(allow: ["POST"]) }
            return try backupResponse(request)
        default:
            if path.hasPrefix("/schema/") {
                try Self.requireGet(request)
                return try tableSchema(String(path.dropFirst("/schema/".count)))
            }
            throw .notFound("no endpoint at \(request.method) \(Self.printable(path))")
        }
    }

    private static func requireGet(_ request: HTTPRequest) throws(APIError) {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw .methodNotAllowed(allow: ["GET", "HEAD"])
        }
    }

    /// The path cut short and stripped of control characters, for messages.
    static func printable(_ path: String) -> String {
        let clipped = path.unicodeScalars.prefix(200).filter { $0.value >= 0x20 && $0.value != 0x7F }
        return String(String.UnicodeScalarView(clipped))
    }

    // MARK: Responses

    static func jsonResponse(
        status: Int = 200,
        _ body: [UInt8],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var response = HTTPResponse(status: HTTPStatus(code: status), body: .bytes(body))
        response.headers.set(name: "Content-Type", value: "application/json; charset=utf-8")
        for (name, value) in headers { response.headers.add(name: name, value: value) }
        return response
    }

    static func errorResponse(_ error: APIError) -> HTTPResponse {
        var writer = JSONWriter()
        error.writeBody(to: &writer)
        return jsonResponse(status: error.status, writer.bytes, headers: error.headers)
    }
}
