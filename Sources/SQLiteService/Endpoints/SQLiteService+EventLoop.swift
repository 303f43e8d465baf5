import HTTPServer
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

    /// `POST /query` on the event loop: the same decoding and the same statement executor as on a handler thread,
    /// on a reader that is free now, under
    /// ``eventLoopBudget``; nil when no reader is free, the budget ran out first, or the body is larger than
    /// ``eventLoopBodyLimit``.
    func queryOnEventLoop(_ httpRequest: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse? {
        // A streamed result is sent from a handler thread (its writer blocks while the client reads).
        guard httpRequest.body.count <= Self.eventLoopBodyLimit, try Self.resultFormat(of: httpRequest) == .json
        else { return nil }
        let metrics = settings.options.metrics
        var (request, context) = try Self.decodeQuery(httpRequest.body, limits: settings.limits)
        let requestDeadline = context.deadline
        let budgetDeadline = min(requestDeadline, context.created + Self.eventLoopBudget)
        let output: [UInt8]? = try store.readNow(metrics: metrics, isolation: Self.isolation(of: request)) {
            db throws(APIError) -> [UInt8]? in
            do throws(APIError) {
                return try Self.runQuery(request, context: &context, on: db, until: budgetDeadline)
            } catch {
                if Self.isBudgetTimeout(error, requestDeadline: requestDeadline) {
                    return nil
                }
                throw error
            }
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
        let output = try store.readNow(metrics: metrics, isolation: .snapshot) { db throws(APIError) -> [UInt8]? in
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
