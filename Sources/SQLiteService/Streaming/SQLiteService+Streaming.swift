import HTTPServer
import Logging
import SQLiteEngine
import Synchronization

extension SQLiteService {
    /// The format `request` asks for by its `Accept` field (``ResultFormat/negotiate(accept:)``).
    static func resultFormat(of request: HTTPRequest) throws(APIError) -> ResultFormat {
        // Most requests send none: JSON without collecting the fields (this runs for every `/query`).
        guard request.headers["accept"] != nil else { return .json }
        let accept = request.headers.values(for: "accept")
        if accept.count == 1 && accept[0] == "*/*" { return .json }
        return try ResultFormat.negotiate(accept: accept)
    }

    /// A response streamed in `format`: `statement` (read-only, checked when it is prepared) runs on the storage
    /// when the server starts sending, and its rows are written as they are read (``Storage/streamQuery``).
    ///
    /// What the client gets when it fails: before the head (a syntax, bind or schema error, a failing first step),
    /// the ordinary JSON error and its status, as if nothing had been streamed; after it, NDJSON's last line is
    /// `{"error":{…}}` and a CSV response is cut (HTTP/1.1: no last chunk; HTTP/2: `RST_STREAM INTERNAL_ERROR`).
    /// A client that goes away or stops reading ends the statement at its next write, which frees its reader.
    func streamedResponse(
        _ format: ResultFormat,
        statement: StatementRequest,
        context: RequestContext,
        settings: ServiceSettings
    ) -> HTTPResponse {
        let metrics = settings.options.metrics
        let store = self.store
        let streams = self.streams
        let logger = self.logger
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: format.contentType)
        return HTTPResponse(
            status: .ok,
            headers: headers,
            body: .stream { body in
                var context = context
                var out = StreamedResultWriter(format: format, maxRowBytes: context.maxResponseBytes) { bytes in
                    try body.write(bytes)
                }
                streams.opened(readers: store.streamReaders, metrics: metrics, logger: logger)
                defer { streams.closed(rows: out.rowCount, holdsReader: store.streamReaders != nil, metrics: metrics) }
                do throws(APIError) {
                    try store.streamQuery(statement, context: &context, metrics: metrics, into: &out)
                    try out.finish()
                } catch {
                    if let failure = out.sendFailure {
                        if let failure = failure as? HTTPServerError, failure.code == .streamStalled {
                            metrics?.streams.stallsCut.increment()
                        }
                        throw failure
                    }
                    guard out.started else { throw HTTPResponseReplacement(Self.errorResponse(error)) }
                    metrics?.recordFailure(code: error.code)
                    guard format == .ndjson else { throw error }
                    try out.finish(failingWith: error)
                }
            }
        )
    }
}

/// The streamed responses in progress, counted for the metrics and for the warning given when they hold every
/// reader of the pool (then `/query` and the Tables reads wait for a stream to end, up to the reader wait limit).
final class StreamCounter: Sendable {
    private let open = Atomic<Int>(0)
    /// Whether the warning for the current run of streams holding every reader was given (once per run).
    private let warned = Atomic<Bool>(false)

    /// Counts a stream that starts; `readers`: the storage's readers when each stream holds one.
    func opened(readers: Int?, metrics: ServiceMetrics?, logger: Logger) {
        let count = open.add(1, ordering: .relaxed).newValue
        metrics?.streams.open.record(count)
        guard let readers else { return }
        metrics?.streams.readersHeld.record(count)
        if count >= readers, !warned.exchange(true, ordering: .relaxed) {
            logger.warning(
                "streamed responses hold every reader: other reads wait until one ends",
                metadata: ["streams": "\(count)", "readers": "\(readers)"]
            )
        }
    }

    /// Counts a stream that ended after `rows` rows.
    func closed(rows: Int, holdsReader: Bool, metrics: ServiceMetrics?) {
        let count = open.subtract(1, ordering: .relaxed).newValue
        metrics?.streams.open.record(count)
        if holdsReader { metrics?.streams.readersHeld.record(count) }
        metrics?.streams.rows.increment(by: rows)
        if count == 0 { warned.store(false, ordering: .relaxed) }
    }

    /// Streams in progress.
    var count: Int { open.load(ordering: .relaxed) }
}
