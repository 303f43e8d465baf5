import HTTPServer

/// One endpoint of the API as ``RouteTable`` declares it: its path pattern and methods, the role a token needs,
/// where its work runs, what its bodies are, and its handlers.
///
/// Everything that asks "which endpoint is this and what does it need" asks a route: the 404 and the 405 with its
/// `Allow` field, the token check, the `Content-Type` check, the metrics label and the request log's endpoint name
/// (``ServiceEndpoint/label``), and the hand-off to the event loop, the group commit or a handler thread.
/// A class: the router hands one reference around per request rather than copying a dozen fields.
final class Route: Sendable {
    /// Where a request's work runs.
    enum Placement: Sendable, Equatable {
        /// On the event loop when that is cheap (``Route/onEventLoop`` answers), else on a handler thread.
        case eventLoop
        /// Decoded and checked on the event loop, then committed in a group (``Route/makeWrite``) on the local
        /// storage with group commit on; else on a handler thread.
        case groupCommit
        /// On a handler thread: it waits for the writer, the cluster's leader, files or the HTTP server.
        case handlerThread
    }

    /// Which storages serve the route; on another one its path is unknown (404).
    enum Availability: Sendable, Equatable {
        case everywhere
        case clusterOnly
    }

    /// The answer on a handler thread; may wait.
    typealias Handler = @Sendable (SQLiteService, HTTPRequest, ServiceSettings) throws(APIError) -> HTTPResponse
    /// The answer on the event loop, or nil to leave the request to ``Handler`` (a reader not free at once, the
    /// budget used up, a body too large to decode here).
    typealias EventLoopHandler =
        @Sendable (SQLiteService, HTTPRequest, ServiceSettings) throws(APIError) -> HTTPResponse?
    /// The decoded and checked write of a request, for either storage (its `Idempotency-Key` is handled around it,
    /// by ``SQLiteService/storageWrite(_:_:settings:tokenName:)``).
    typealias WriteMaker = @Sendable (SQLiteService, HTTPRequest, ServiceLimits) throws(APIError) -> StorageWrite

    /// The path pattern (its ``ServiceEndpoint/label`` is the template, e.g. `/tables/{table}/rows`).
    let endpoint: ServiceEndpoint
    /// The methods served; `GET` also serves `HEAD`.
    let methods: [String]
    /// The role a token needs; nil: open to every client (`/health`).
    let role: TokenRole?
    /// Whether the router checks `Content-Type: application/json` before the handler runs (the endpoints whose
    /// body is always JSON; the others check it where their contract puts it).
    let requiresJSON: Bool
    let placement: Placement
    let availability: Availability
    /// The name of the request body's schema (nil: no body), for the API's description.
    let requestBody: String?
    /// The name of the success response body's schema.
    let responseBody: String
    /// The status of a success (201 for `POST /transactions`, which makes a resource).
    let successStatus: Int
    /// Whether the route streams its result as NDJSON or CSV when `Accept` asks for it (``ResultFormat``), and
    /// answers 406 when `Accept` allows none of its formats.
    let streamsResults: Bool
    /// Whether `GET /openapi.json` describes the route: false for the console's pages (issue #31), which are not
    /// part of the API (HTML for a browser, not JSON for a client).
    let isInAPIDocument: Bool
    /// The answer of a route that does not write (nil for a write: ``makeWrite``).
    let handle: Handler?
    let onEventLoop: EventLoopHandler?
    /// The write of a write route (``Placement/groupCommit``).
    let makeWrite: WriteMaker?

    init(
        _ endpoint: ServiceEndpoint,
        _ methods: [String],
        role: TokenRole?,
        requiresJSON: Bool = false,
        placement: Placement = .handlerThread,
        availability: Availability = .everywhere,
        requestBody: String? = nil,
        responseBody: String,
        successStatus: Int = 200,
        streamsResults: Bool = false,
        isInAPIDocument: Bool = true,
        handle: Handler? = nil,
        onEventLoop: EventLoopHandler? = nil,
        makeWrite: WriteMaker? = nil
    ) {
        precondition((placement == .eventLoop) == (onEventLoop != nil), "an event-loop route needs its handler")
        precondition((placement == .groupCommit) == (makeWrite != nil), "a group-commit route needs its write")
        precondition((handle == nil) == (makeWrite != nil), "a route has a handler or a write")
        self.endpoint = endpoint
        self.methods = methods
        self.role = role
        self.requiresJSON = requiresJSON
        self.placement = placement
        self.availability = availability
        self.requestBody = requestBody
        self.responseBody = responseBody
        self.successStatus = successStatus
        self.streamsResults = streamsResults
        self.isInAPIDocument = isInAPIDocument
        self.handle = handle
        self.onEventLoop = onEventLoop
        self.makeWrite = makeWrite
    }

    /// The answer on a handler thread: the handler's, or the write's once it is durable (on the local writer
    /// through the group committer, on the cluster's leader), its `Idempotency-Key` released just before.
    func answer(
        _ service: SQLiteService,
        _ request: HTTPRequest,
        _ settings: ServiceSettings,
        tokenName: String?
    ) throws(APIError) -> HTTPResponse {
        guard let makeWrite else {
            guard let handle else { throw .internal("the route has no handler") }
            return try handle(service, request, settings)
        }
        let write = try service.storageWrite(
            makeWrite,
            request,
            settings: settings,
            tokenName: tokenName
        )
        defer { write.claim?.release() }
        return try service.performWrite(write, settings)
    }

    /// The write of `request` for a group committer (``Placement/groupCommit``), taken on the event loop.
    func storageWrite(
        _ service: SQLiteService,
        _ request: HTTPRequest,
        _ settings: ServiceSettings,
        tokenName: String?
    ) throws(APIError) -> StorageWrite? {
        guard let makeWrite else { return nil }
        return try service.storageWrite(makeWrite, request, settings: settings, tokenName: tokenName)
    }

    /// Whether the route serves `method` (`HEAD` where it serves `GET`).
    func serves(_ method: String) -> Bool {
        for served in methods where served == method || (method == "HEAD" && served == "GET") {
            return true
        }
        return false
    }

    /// The methods as the `Allow` field lists them: `GET` followed by `HEAD`.
    var allowed: [String] {
        methods.flatMap { $0 == "GET" ? ["GET", "HEAD"] : [$0] }
    }
}
