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
    /// The reads of `storage`, written once per storage (``Storage``).
    let store: any Storage
    let logger: Logger
    /// Writes a request log line through `logger`'s handler when that handler writes them itself (the daemon's
    /// does), looked up once. A closure rather than the handler: calling it borrows the handler it holds, where
    /// unwrapping an optional existential copied the whole handler for every request.
    let logRequestLine: (@Sendable (RequestLogEntry, Logger.Level) -> Void)?
    /// Limits, options, tokens and availability, read once per request (see ``settings``).
    private let currentSettings: ReadWriteLock<ServiceSettings>
    /// Held while a `POST /backup` runs, so that backups run one at a time.
    let backupSerializer = Mutex<Void>(())
    /// `GET /openapi.json`'s body, made once from the route table (``OpenAPIDocument``).
    let openAPIDocument: [UInt8]
    /// Groups concurrent write requests into one transaction (see ``GroupCommitOptions``).
    let groupCommitter = GroupCommitter<LocalGroupWriter>()
    /// The keyed writes running on this node (``IdempotencyRegistry``).
    let idempotencyRunning = IdempotencyRegistry()
    /// When expired idempotency keys are deleted next.
    let idempotencyExpiry = IdempotencyExpiry()
    /// Streamed responses in progress.
    let streams = StreamCounter()
    /// The open interactive transactions (`/transactions`).
    let transactions = TransactionRegistry()

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

    /// Creates the service over `storage`: this machine's pool, or a dqlite cluster (``StorageBackend``).
    public init(
        storage: StorageBackend,
        limits: ServiceLimits = ServiceLimits(),
        version: String,
        logger: Logger,
        options: ServiceOptions = ServiceOptions()
    ) {
        self.storage = storage
        switch storage {
        case .local(let pool): store = LocalStorage(pool: pool)
        case .cluster(let cluster): store = cluster
        }
        self.version = version
        openAPIDocument = OpenAPIDocument.make(version: version)
        self.logger = logger
        if let handler = logger.handler as? any RequestLogHandler {
            self.logRequestLine = { entry, level in handler.logRequest(entry, level: level) }
        } else {
            self.logRequestLine = nil
        }
        self.currentSettings = ReadWriteLock(
            ServiceSettings(limits: limits, options: options, tokens: nil, isAvailable: false)
        )
        transactions.setExpiryObserver { [weak self] _ in
            guard let self, let metrics = self.settings.options.metrics else { return }
            metrics.transactions.expired.increment()
            metrics.transactions.recordOpen(self.transactions.counts)
        }
    }

    /// How many interactive transactions are open.
    public var openTransactionCount: Int {
        transactions.counts.open
    }

    /// Shutdown begins: the open interactive transactions still take requests (and may commit), no new one opens;
    /// ``rollBackTransactions()`` ends them.
    public func beginClosingTransactions() {
        transactions.beginClosing()
    }

    /// Shutdown's end: rolls back every open interactive transaction (one whose request runs, as it ends).
    public func rollBackTransactions() {
        transactions.rollBackAll()
    }

    /// The OpenAPI 3.1 document `GET /openapi.json` serves for a server of `version`, made from the route table:
    /// what `sqlited openapi` prints and the Swift client (`Clients/Swift`) is generated from.
    public static func openAPIDocument(version: String) -> [UInt8] {
        OpenAPIDocument.make(version: version)
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

    /// The local backend's pool. Only the local paths reach it: with the cluster backend the route table's
    /// handlers choose the cluster's implementations (``StorageBackend``), the event loop hands every request to
    /// ``handle(_:)`` and group commit is off.
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

    // MARK: Answers

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

    /// The contract's error body (API.md, "Errors") for a request the HTTP server refused before routing it:
    /// malformed HTTP, a limit passed, a request head not received in time, a connection over the limit. The
    /// server chose the status and the code; the body is the same as every other error's.
    public func response(to rejection: HTTPRejection) -> HTTPResponse {
        Self.errorResponse(APIError(status: rejection.status.code, code: rejection.code, message: rejection.message))
    }
}

extension SQLiteService {
    /// `GET /openapi.json`: the API's OpenAPI 3.1 document (no token needed).
    func openAPIResponse() -> HTTPResponse {
        Self.jsonResponse(openAPIDocument)
    }
}
