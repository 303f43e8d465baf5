public import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// How long a statement may run on the event loop before it is abandoned and rerun on a handler thread.
    ///
    /// Every other connection of the event loop waits meanwhile, so this is about the cost of a thread hand-off
    /// and a handful of point queries: long enough for any indexed lookup, short enough that one slow query delays
    /// its neighbours by no more than a couple of milliseconds. It is not a limit on the request: a statement still
    /// running at the budget is interrupted, its partial result thrown away, and ``handle(_:)`` runs the request
    /// again from the start under the request's own time limit.
    static let eventLoopBudget: Duration = .milliseconds(2)

    /// The largest `/query` body decoded on the event loop; bigger ones (a long `params_batch`, a huge statement)
    /// are decoded on a handler thread, as parsing them could take longer than ``eventLoopBudget``.
    static let eventLoopBodyLimit = 64 * 1024

    /// Answers `request` on the event loop when that is cheap and cannot block; nil hands it to ``handle(_:)``.
    ///
    /// Answered here: `POST /query` when a reader is free at once and the statement finishes within
    /// ``eventLoopBudget``; `GET`/`HEAD` `/health`, `/schema` and `/schema/{table}` (the schema ones under the same
    /// conditions); and every error that needs no database (unknown path, wrong method, wrong content type,
    /// malformed JSON or request for `/query`, missing or insufficient credentials). Given to ``handle(_:)``:
    /// `/update`, `/batch`, `/transaction`, `/backup` and `/admin/…` (they wait for the writer or write files), `/metrics` (it
    /// calls back into the HTTP server for its connection count and `stat`s files), and anything that failed with a
    /// server-side (5xx) error here, such as a busy reader: ``handle(_:)`` answers those, waiting where it may.
    ///
    /// Only read-only statements on read-only connections run here, so giving up part way leaves nothing behind.
    /// A request answered here is logged and counted in the metrics here; one given up is left entirely to
    /// ``handle(_:)``, so each request is recorded once.
    public func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        // The cluster backend's statements wait for the leader's answer: never on the event loop.
        guard case .local = storage else { return nil }
        return answering(request) { request, endpoint, settings in
            respondOnEventLoop(to: request, endpoint, settings: settings)
        }
    }

    /// ``respond(to:_:settings:)`` for the event loop: the same answers, or nil where ``handle(_:)`` must answer.
    func respondOnEventLoop(
        to request: HTTPRequest,
        _ endpoint: ServiceEndpoint,
        settings: ServiceSettings
    ) -> ServiceResponse? {
        var tokenName: String?
        do {
            tokenName = try authenticate(request, tokens: settings.tokens)
            guard let response = try routeOnEventLoop(request, endpoint, settings: settings) else {
                return nil
            }
            return ServiceResponse(response: response, tokenName: tokenName)
        } catch {
            // handle() logs server-side failures and may answer them differently after waiting (a busy database);
            // leave them to it.
            if error.status >= 500 {
                return nil
            }
            return ServiceResponse(response: Self.errorResponse(error), tokenName: tokenName, errorCode: error.code)
        }
    }

    /// The event loop's share of ``route(_:_:settings:)``: the same checks in the same order, so that an error
    /// answered here is the one ``handle(_:)`` would give.
    private func routeOnEventLoop(
        _ request: HTTPRequest,
        _ endpoint: ServiceEndpoint,
        settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse? {
        let metrics = settings.options.metrics
        switch endpoint {
        case .query:
            try Self.requirePostWithJSON(request)
            guard request.body.count <= Self.eventLoopBodyLimit else { return nil }
            return try queryOnEventLoop(request.body, limits: settings.limits, metrics: metrics)
        case .update, .batch, .transaction:
            try Self.requirePostWithJSON(request)
            return nil
        case .health:
            try Self.requireGet(request)
            return health(isAvailable: settings.isAvailable)
        case .schema:
            try Self.requireGet(request)
            return try withEventLoopBudget(metrics: metrics) { db throws(APIError) in try Self.schemaBody(db) }
        case .metrics:
            try Self.requireGet(request)
            guard metrics != nil else { return try metricsResponse(nil) }
            return nil
        case .backup, .cluster:
            return nil
        case .schemaTable:
            try Self.requireGet(request)
            let name = String(request.path.dropFirst("/schema/".count))
            return try withEventLoopBudget(metrics: metrics) { db throws(APIError) in
                try Self.tableSchemaBody(name, db)
            }
        case .adminVacuum, .adminCheckpoint, .adminOptimize:
            // Maintenance waits for the writer and may run for minutes: a handler thread answers it.
            return nil
        case .tables, .tablesRows, .tablesRow, .tablesCount, .other:
            if let answer = try tablesResponseOnEventLoop(request, settings: settings) { return answer }
            throw Self.noEndpoint(request)
        }
    }

    /// `POST /query` on the event loop: ``query(_:limits:metrics:)`` on a reader that is free now, under
    /// ``eventLoopBudget``; nil when no reader is free or the budget ran out first.
    func queryOnEventLoop(
        _ body: [UInt8],
        limits: ServiceLimits,
        metrics: ServiceMetrics?
    ) throws(APIError) -> HTTPResponse? {
        var (request, context) = try Self.decodeQuery(body, limits: limits)
        let requestDeadline = context.deadline
        let budgetDeadline = min(requestDeadline, context.created + Self.eventLoopBudget)
        let output: [UInt8]? = try tryOnReader(metrics: metrics, isolation: Self.isolation(of: request)) {
            db throws(APIError) -> [UInt8]? in
            var writer = JSONWriter()
            do throws(APIError) {
                try db.withRequestDeadline(budgetDeadline) { () throws(APIError) in
                    try StatementExecutor(db: db).run(request.statement, context: &context, into: &writer)
                }
            } catch {
                if Self.isBudgetTimeout(error, requestDeadline: requestDeadline) {
                    return nil
                }
                throw error
            }
            return writer.bytes
        }
        return output.map { Self.jsonResponse($0) }
    }

    /// Whether `error` is the budget running out rather than the request's own time limit: a timeout while the
    /// request still had time. When the request's deadline comes first (a `timeout_ms` below the budget), the
    /// interrupt is the request's and the timeout is its answer, as on a handler thread.
    static func isBudgetTimeout(_ error: APIError, requestDeadline: ContinuousClock.Instant) -> Bool {
        error.code == APIError.timeout().code && ContinuousClock.now < requestDeadline
    }

    /// Runs a schema endpoint on a reader that is free now, under ``eventLoopBudget``; nil when no reader is free
    /// or the budget ran out (the schema endpoints have no time limit of their own, so any timeout is the budget's).
    func withEventLoopBudget(
        metrics: ServiceMetrics?,
        _ body: (Database) throws(APIError) -> [UInt8]
    ) throws(APIError) -> HTTPResponse? {
        let output = try tryOnReader(metrics: metrics, isolation: .snapshot) { db throws(APIError) -> [UInt8]? in
            do throws(APIError) {
                return try db.withRequestDeadline(.now + Self.eventLoopBudget) { () throws(APIError) in
                    try body(db)
                }
            } catch {
                if error.code == APIError.timeout().code {
                    return nil
                }
                throw error
            }
        }
        return output.map { Self.jsonResponse($0) }
    }
}
