import HTTPServer
import Logging
import SQLiteEngine

extension SQLiteService {
    /// `GET /metrics`: the Prometheus text exposition, or 404 when the service has no metrics.
    func metricsResponse(_ metrics: ServiceMetrics?) throws(APIError) -> HTTPResponse {
        guard let metrics else {
            throw .notFound("no endpoint at GET /metrics: metrics are not enabled")
        }
        var response = HTTPResponse(status: .init(code: 200), body: .bytes(metrics.render()))
        response.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        return response
    }

    /// Records `handled`, the answer to `request` that began at `started` (see below).
    func observe(
        _ request: HTTPRequest,
        endpoint: ServiceEndpoint,
        handled: ServiceResponse,
        since started: ContinuousClock.Instant,
        options: ServiceOptions
    ) {
        observe(
            request,
            endpoint: endpoint,
            response: handled.response,
            errorCode: handled.errorCode,
            tokenName: handled.tokenName,
            duration: ContinuousClock.now - started,
            options: options
        )
    }

    /// Records a finished request in the metrics and writes its one log line.
    ///
    /// - Parameters:
    ///   - errorCode: The API error code when the handler threw one; otherwise the code is read from an error body
    ///     the endpoint wrote itself (a failed `/batch`).
    ///   - streamedBytes: The bytes of a streamed body, counted as it was sent.
    func observe(
        _ request: HTTPRequest,
        endpoint: ServiceEndpoint,
        response: HTTPResponse,
        errorCode: String?,
        tokenName: String? = nil,
        duration: Duration,
        options: ServiceOptions,
        streamedBytes: Int? = nil
    ) {
        let status = Int(response.status.code)
        let bytes: Int?
        switch response.body {
        case .bytes(let body): bytes = body.count
        case .stream: bytes = streamedBytes
        }
        let nanoseconds = duration.clampedNanoseconds
        if let metrics = options.metrics {
            metrics.recordRequest(
                endpoint: endpoint,
                status: status,
                http2: request.version == .http2,
                nanoseconds: nanoseconds
            )
            if let code = errorCode ?? Self.errorCode(in: response) {
                metrics.recordFailure(code: code)
            }
        }
        let level = options.requestLogLevel
        guard logger.logLevel <= level else { return }
        let entry = RequestLogEntry(
            method: Self.printable(request.method),
            // A Tables path carries a key (a value) and a table name: the log names the endpoint instead.
            path: endpoint.hidesPath ? endpoint.label : Self.printable(request.path),
            status: status,
            nanoseconds: nanoseconds,
            bytes: bytes,
            tokenName: tokenName,
            protocolName: RequestLogEntry.protocolName(of: request.version)
        )
        if let logRequestLine {
            logRequestLine(entry, level)
        } else {
            logger.log(level: level, RequestLogEntry.message, metadata: entry.metadata)
        }
    }

    /// Runs `body` on `db` and adds the statement cache lookups it made to `metrics`.
    static func countingStatementCache<T>(
        _ db: Database,
        metrics: ServiceMetrics?,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard let metrics else {
            return try body(db)
        }
        let before = db.statementCacheStatistics
        defer {
            let after = db.statementCacheStatistics
            metrics.recordStatementCache(hits: after.hits - before.hits, misses: after.misses - before.misses)
        }
        return try body(db)
    }

    /// The `error.code` of a JSON error body with a 5xx status, which only a busy or locked failure the endpoint
    /// reported itself can have; nil for any other response.
    private static func errorCode(in response: HTTPResponse) -> String? {
        guard response.status.code >= 500, case .bytes(let body) = response.body,
            case .object(let object)? = try? JSONParser().parse(body),
            case .object(let error)? = object["error"], case .string(let code)? = error["code"]
        else {
            return nil
        }
        return code
    }

}

extension APISchemas {
    /// The schema of `GET /metrics`'s text (OpenAPI, ``APISchemas``).
    static let metricsText: [(name: String, json: String)] = [
        ("PrometheusText", ##"{"type": "string", "description": "The Prometheus text exposition format 0.0.4."}"##)
    ]
}
