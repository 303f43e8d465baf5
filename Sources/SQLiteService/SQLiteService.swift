public import HTTPServer
public import Logging
public import SQLiteEngine
import Synchronization

/// The HTTP/JSON API of the contract (`shared/API.md`) over one `DatabasePool`, or over a dqlite cluster (see
/// ``StorageBackend``).
///
/// Reads (`POST /query` and the GET endpoints) run on the pool's read-only
/// reader connections, concurrently with writes; `/update`, `/batch` and
/// `/transaction` run on its single writer, one request at a time.
public final class SQLiteService: HTTPHandler {
    /// The product version reported by `GET /health`.
    public let version: String
    /// Where statements run.
    let storage: StorageBackend
    let logger: Logger
    /// Writes a request log line through `logger`'s handler when that handler writes them itself (the daemon's
    /// does), looked up once. A closure rather than the handler: calling it borrows the handler it holds, where
    /// unwrapping an optional existential copied the whole handler for every request.
    let logRequestLine: (@Sendable (RequestLogEntry, Logger.Level) -> Void)?
    /// Limits, options, tokens and availability, read once per request (see ``settings``).
    private let currentSettings: ReadWriteLock<ServiceSettings>
    /// Held while a `POST /backup` runs, so that backups run one at a time.
    let backupSerializer = Mutex<Void>(())
    /// Signs and checks the Tables API's paging cursors (a key made at start).
    let cursorCodec = RecordCursorCodec()
    /// Groups concurrent write requests into one transaction (see ``GroupCommitOptions``).
    let groupCommitter = GroupCommitter()

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - pool: The database; its connections must have been prepared with
    ///     ``SQLiteService/prepareConnection(_:role:limits:)``.
    ///   - limits: Request limits; may be changed later with ``setLimits(_:)``.
    ///   - version: Reported by `GET /health`.
    ///   - options: Backups, request log and metrics; may be changed later with ``setOptions(_:)``.
    public convenience init(
        pool: DatabasePool,
        limits: ServiceLimits = ServiceLimits(),
        version: String,
        logger: Logger,
        options: ServiceOptions = ServiceOptions()
    ) {
        self.init(storage: .local(pool), limits: limits, version: version, logger: logger, options: options)
    }

    /// Creates the service over `storage`; with ``StorageBackend/cluster(_:)`` group commit is off whatever
    /// `options` say.
    public init(
        storage: StorageBackend,
        limits: ServiceLimits = ServiceLimits(),
        version: String,
        logger: Logger,
        options: ServiceOptions = ServiceOptions()
    ) {
        self.storage = storage
        self.version = version
        self.logger = logger
        if let handler = logger.handler as? any RequestLogHandler {
            self.logRequestLine = { entry, level in handler.logRequest(entry, level: level) }
        } else {
            self.logRequestLine = nil
        }
        self.currentSettings = ReadWriteLock(
            ServiceSettings(limits: limits, options: options, tokens: nil, isAvailable: false)
        )
    }

    /// The settings in force: a request reads them once and keeps the snapshot to its end.
    var settings: ServiceSettings { currentSettings.read() }

    /// Replaces some settings; requests that start afterwards see the new snapshot.
    func updateSettings(_ body: (ServiceSettings) -> ServiceSettings) {
        currentSettings.update(body)
    }

    /// The limits in force.
    public var limits: ServiceLimits { settings.limits }

    /// Replaces the limits; requests that start afterwards use the new ones.
    public func setLimits(_ limits: ServiceLimits) {
        updateSettings { $0.with(limits: limits) }
    }

    /// The operational options in force.
    public var options: ServiceOptions { settings.options }

    /// Replaces the operational options (a reload); requests that start afterwards use the new ones.
    public func setOptions(_ options: ServiceOptions) {
        updateSettings { $0.with(options: options) }
    }

    /// The local backend's pool. Only the local paths reach it: with the cluster backend, ``route(_:_:settings:)``
    /// answers every endpoint before (see ``StorageBackend``), the event loop hands every request to ``handle(_:)``
    /// and group commit is off.
    var pool: DatabasePool {
        guard case .local(let pool) = storage else {
            preconditionFailure("the cluster backend has no local pool")
        }
        return pool
    }

    /// Whether `/health` reports ok; false while starting and shutting down.
    public var isAvailable: Bool {
        get { settings.isAvailable }
        set { updateSettings { $0.with(isAvailable: newValue) } }
    }

    /// Applies the service's SQL policy and limits to a new connection.
    ///
    /// Call it from the pool's `prepareDatabase` hook, so that it runs once for
    /// the writer and once for each reader as it opens.
    public static func prepareConnection(_ db: Database, role: ConnectionRole, limits: ServiceLimits) {
        // One table for the pool's connections and the cluster leader's (ServiceLimits.connectionLimits).
        for (limit, value) in limits.connectionLimits {
            _ = db.setLimit(limit, value)
        }
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
        // `respond` always answers, so `answering` never gives nil here.
        answering(request) { request, endpoint, settings in respond(to: request, endpoint, settings: settings) }
            ?? Self.errorResponse(.internal())
    }

    /// Runs `respond` with the settings in force and, when it answers, records the request (metrics and its log
    /// line) with the time it took: the one place both ``handle(_:)`` and ``handleOnEventLoop(_:)`` observe from.
    func answering(
        _ request: HTTPRequest,
        _ respond: (HTTPRequest, ServiceEndpoint, ServiceSettings) -> ServiceResponse?
    ) -> HTTPResponse? {
        let started = ContinuousClock.now
        let settings = self.settings
        let endpoint = ServiceEndpoint(path: request.path)
        guard let handled = respond(request, endpoint, settings) else { return nil }
        observe(request, endpoint: endpoint, handled: handled, since: started, options: settings.options)
        return handled.response
    }

    /// Authenticates, routes and answers `request`; the result also names the token that was used, for the request
    /// log line (a per-request value, so it travels with the response rather than in shared state).
    func respond(to request: HTTPRequest, _ endpoint: ServiceEndpoint, settings: ServiceSettings) -> ServiceResponse {
        var tokenName: String?
        do {
            tokenName = try authenticate(request, tokens: settings.tokens)
            return ServiceResponse(response: try route(request, endpoint, settings: settings), tokenName: tokenName)
        } catch {
            return failure(error, answering: request, tokenName: tokenName)
        }
    }

    /// The answer to a request that failed with `error`; a server-side failure (5xx) is logged.
    func failure(_ error: APIError, answering request: HTTPRequest, tokenName: String?) -> ServiceResponse {
        if error.status >= 500 {
            logger.error(
                "request failed",
                metadata: ["path": "\(request.path)", "code": "\(error.code)", "token": "\(tokenName ?? "-")"]
            )
        }
        return ServiceResponse(response: Self.errorResponse(error), tokenName: tokenName, errorCode: error.code)
    }

    private func route(
        _ request: HTTPRequest,
        _ endpoint: ServiceEndpoint,
        settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse {
        if case .cluster(let cluster) = storage {
            return try routeOnCluster(request, endpoint, settings: settings, cluster: cluster)
        }
        let metrics = settings.options.metrics
        let limits = settings.limits
        switch endpoint {
        case .query, .update, .batch, .transaction:
            try Self.requirePostWithJSON(request)
            switch endpoint {
            case .query: return try query(request.body, limits: limits, metrics: metrics)
            case .update: return try run(update(request.body, limits: limits), metrics: metrics)
            case .batch: return try run(batch(request.body, limits: limits), metrics: metrics)
            default: return try run(transaction(request.body, limits: limits), metrics: metrics)
            }
        case .health:
            try Self.requireGet(request)
            return health(isAvailable: settings.isAvailable)
        case .schema:
            try Self.requireGet(request)
            return try schema(metrics: metrics)
        case .metrics:
            try Self.requireGet(request)
            return try metricsResponse(metrics)
        case .backup:
            guard request.method == "POST" else { throw .methodNotAllowed(allow: ["POST"]) }
            return try backupResponse(request, options: settings.options)
        case .schemaTable:
            try Self.requireGet(request)
            return try tableSchema(String(request.path.dropFirst("/schema/".count)), metrics: metrics)
        case .adminVacuum, .adminCheckpoint, .adminOptimize:
            guard let response = try maintenanceResponse(request, metrics: metrics) else {
                throw Self.noEndpoint(request)
            }
            return response
        case .cluster:
            // Only the cluster backend serves GET /cluster.
            throw Self.noEndpoint(request)
        case .tables, .tablesRows, .tablesRow, .tablesCount, .other:
            // `.other` too: a malformed path under `/tables/` is the Tables API's 404 or 400.
            if let response = try tablesResponse(request, settings: settings) {
                return response
            }
            throw Self.noEndpoint(request)
        }
    }

    /// 404 for a path no endpoint serves.
    static func noEndpoint(_ request: HTTPRequest) -> APIError {
        .notFound("no endpoint at \(request.method) \(printable(request.path))")
    }

    /// The checks every JSON `POST` endpoint makes before it reads the body: the method, then the content type.
    static func requirePostWithJSON(_ request: HTTPRequest) throws(APIError) {
        guard request.method == "POST" else { throw .methodNotAllowed(allow: ["POST"]) }
        try JSONContentType.check(request.headers["content-type"])
    }

    static func requireGet(_ request: HTTPRequest) throws(APIError) {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw .methodNotAllowed(allow: ["GET", "HEAD"])
        }
    }

    /// The path cut short and stripped of control characters, for messages.
    static func printable(_ path: String) -> String {
        // The usual case, short and printable ASCII already, is returned as it is (this runs for every request, so
        // the bytes are checked in place rather than through the UTF-8 view's iterator).
        var path = path
        if path.withUTF8({ $0.count <= 200 && !$0.contains { $0 < 0x20 || $0 >= 0x7F } }) {
            return path
        }
        let clipped = path.unicodeScalars.prefix(200).filter { $0.value >= 0x20 && $0.value != 0x7F }
        return String(String.UnicodeScalarView(clipped))
    }

    // MARK: Responses

    static func jsonResponse(
        status: Int = 200,
        _ body: [UInt8],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var response = HTTPResponse(status: HTTPStatus(code: status), headers: jsonHeaders, body: .bytes(body))
        for (name, value) in headers { response.headers.add(name: name, value: value) }
        return response
    }

    /// The fields of every JSON response, made once: each response shares them (copy on write) instead of
    /// allocating its own.
    private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]

    static func errorResponse(_ error: APIError) -> HTTPResponse {
        var writer = JSONWriter()
        error.writeBody(to: &writer)
        return jsonResponse(status: error.status, writer.bytes, headers: error.headers)
    }
}
