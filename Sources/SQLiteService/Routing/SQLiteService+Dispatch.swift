public import HTTPServer
import Synchronization

/// The three doors of the HTTP server (``HTTPHandler``), each answering through ``RouteTable``: the same checks in
/// the same order everywhere (the credentials in the query string, the token and its role, the route and its
/// method, the content type), so a request is answered alike whichever door it takes.
///
/// The event loop is offered every request first: it answers what is cheap there (a route placed
/// ``Route/Placement/eventLoop`` whose handler answers at once, and every error that needs no database); the group
/// committer takes the writes (``Route/Placement/groupCommit``); a handler thread answers the rest. On the cluster
/// storage a JSON `/query` joins the next batch of reads sent to the leader, and every other request goes to a
/// handler thread (its statements wait for the leader).
extension SQLiteService {
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        // The closure always answers, so `answering` never gives nil here.
        answering(request) { request, endpoint, settings in
            var tokenName: String?
            do throws(APIError) {
                let route = try resolve(request, endpoint, settings: settings, tokenName: &tokenName)
                return ServiceResponse(
                    response: try route.answer(self, request, settings, tokenName: tokenName),
                    tokenName: tokenName
                )
            } catch {
                return failure(error, answering: request, tokenName: tokenName)
            }
        } ?? Self.errorResponse(.internal())
    }

    /// Answers `request` on the event loop when that is cheap and cannot block; nil hands it on (to
    /// ``handleDeferred(_:respond:)``, then ``handle(_:)``).
    ///
    /// A request answered here is logged and counted in the metrics here; one handed on is left entirely to the
    /// next door, so each request is recorded once. A server-side (5xx) error found here is handed on too: the
    /// handler thread logs it and may answer it differently after waiting (a busy reader).
    public func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        // The cluster storage's statements wait for the leader's answer: never on the event loop.
        guard case .local = storage else { return nil }
        return answering(request) { request, endpoint, settings in
            var tokenName: String?
            do throws(APIError) {
                let route = try resolve(request, endpoint, settings: settings, tokenName: &tokenName)
                guard let onEventLoop = route.onEventLoop,
                    let response = try onEventLoop(self, request, settings)
                else { return nil }
                return ServiceResponse(response: response, tokenName: tokenName)
            } catch {
                if error.status >= 500 { return nil }
                return ServiceResponse(response: Self.errorResponse(error), tokenName: tokenName, errorCode: error.code)
            }
        }
    }

    /// Takes a write (``Route/Placement/groupCommit``) on the event loop: decoded and checked here, queued for the
    /// next group, and answered — its metrics and log line recorded — by the thread that committed its group, once
    /// the `COMMIT` (its fsync) is over. No handler thread waits per request: a thread per waiting request cost
    /// every write two thread wake-ups, which on one core took more time than the write itself.
    ///
    /// On both storages: the cluster's group is led by the committer's own queue, which waits for the leader's
    /// answers, never by the event loop. False (the request goes to ``handle(_:)``, with the same answers) with
    /// group commit off, for a body larger than ``eventLoopBodyLimit`` (decoding it could hold the loop), and for
    /// any request no group-commit route serves (a method a writing path does not serve is taken, and answered 405
    /// at once).
    ///
    /// On the cluster storage it takes a JSON `/query` too, decoded here and queued for the next batch of reads
    /// sent to the leader in one write (``ClusterStorage/queueRead(_:context:answer:)``), whatever the group commit
    /// setting.
    public func handleDeferred(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        let started = ContinuousClock.now
        let settings = self.settings
        let groupCommit = settings.options.groupCommit.isEnabled
        guard request.body.count <= Self.eventLoopBodyLimit, groupCommit || storage.isCluster else { return false }
        let endpoint = ServiceEndpoint(request)
        let match = RouteTable.match(endpoint, method: request.method, onCluster: storage.isCluster)
        /// Records the request and sends its response, from whichever thread answers it.
        func finishing() -> @Sendable (ServiceResponse) -> Void {
            { handled in
                self.observe(request, endpoint: endpoint, handled: handled, since: started, options: settings.options)
                respond(handled.response)
            }
        }
        // A streamed result (an `Accept` no JSON result satisfies) goes to a handler thread.
        if case .cluster(let cluster) = storage, case .route(let route) = match, route.endpoint == .query,
            (try? Self.resultFormat(of: request)) == .json
        {
            queueClusterQuery(request, endpoint, match, settings: settings, on: cluster, finish: finishing())
            return true
        }
        guard groupCommit else { return false }
        // A write, or a method no route of a writing path serves (its 405 is answered here at once).
        switch match {
        case .route(let route) where route.makeWrite != nil: break
        case .methodNotAllowed where RouteTable.hasGroupCommitRoute(endpoint): break
        default: return false
        }
        let finish = finishing()
        var tokenName: String?
        let write: StorageWrite
        do throws(APIError) {
            let route = try resolve(request, endpoint, settings: settings, tokenName: &tokenName, match: match)
            guard let storageWrite = try route.storageWrite(self, request, settings, tokenName: tokenName) else {
                throw .internal("no write for this route")
            }
            write = storageWrite
        } catch {
            finish(failure(error, answering: request, tokenName: tokenName))
            return true
        }
        let completion: (Result<HTTPResponse, APIError>) -> Void = { [tokenName] result in
            // The key is free again before the client can read the answer and send the next request.
            write.claim?.release()
            switch result {
            case .success(let response): finish(ServiceResponse(response: response, tokenName: tokenName))
            case .failure(let error): finish(self.failure(error, answering: request, tokenName: tokenName))
            }
        }
        performWriteDeferred(write, settings, completion: completion)
        return true
    }

    /// Runs `respond` with the settings in force and, when it answers, records the request (metrics and its log
    /// line) with the time it took: the one place ``handle(_:)`` and ``handleOnEventLoop(_:)`` observe from.
    func answering(
        _ request: HTTPRequest,
        _ respond: (HTTPRequest, ServiceEndpoint, ServiceSettings) -> ServiceResponse?
    ) -> HTTPResponse? {
        let started = ContinuousClock.now
        let settings = self.settings
        let endpoint = ServiceEndpoint(request)
        guard let handled = respond(request, endpoint, settings) else { return nil }
        if case .stream(let produce) = handled.response.body, request.method != "HEAD" {
            return observedStream(produce, handled, request, endpoint: endpoint, since: started, settings: settings)
        }
        observe(request, endpoint: endpoint, handled: handled, since: started, options: settings.options)
        return handled.response
    }

    /// A streamed response observed when its body ends, not when the handler returns: the status is then the one
    /// sent (a replacement's, when the producer answered with a JSON error before its first byte), the duration
    /// covers the whole body, and the log line counts its bytes.
    private func observedStream(
        _ produce: @escaping @Sendable (HTTPBodyWriter) throws -> Void,
        _ handled: ServiceResponse,
        _ request: HTTPRequest,
        endpoint: ServiceEndpoint,
        since started: ContinuousClock.Instant,
        settings: ServiceSettings
    ) -> HTTPResponse {
        var response = handled.response
        response.body = .stream { [self] writer in
            let sent = Mutex(0)
            let counting = HTTPBodyWriter.forwarding { bytes in
                try writer.write(bytes)
                sent.withLock { $0 += bytes.count }
            }
            var answered = handled
            defer {
                observe(
                    request,
                    endpoint: endpoint,
                    response: answered.response,
                    errorCode: answered.errorCode,
                    tokenName: answered.tokenName,
                    duration: ContinuousClock.now - started,
                    options: settings.options,
                    streamedBytes: sent.withLock { $0 }
                )
            }
            do {
                try produce(counting)
            } catch let replacement as HTTPResponseReplacement {
                answered.response = replacement.response
                throw replacement
            }
        }
        return response
    }

    /// The route of `request`, after the checks every door makes in this order: the credentials (`tokenName` is
    /// set once the token is known), the path (404; the console's too while it is off), the method (405 with
    /// `Allow`), the content type (415). `match`: the route table's answer for the request when the caller has asked
    /// it already (on the local storage).
    func resolve(
        _ request: HTTPRequest,
        _ endpoint: ServiceEndpoint,
        settings: ServiceSettings,
        tokenName: inout String?,
        match: RouteTable.Match? = nil
    ) throws(APIError) -> Route {
        tokenName = try authenticate(request, endpoint: endpoint, tokens: settings.tokens)
        // The console's paths do not exist while it is off: 404 whatever the method.
        if endpoint.isConsole && !settings.options.consoleEnabled { throw Self.noEndpoint(request) }
        switch match ?? RouteTable.match(endpoint, method: request.method, onCluster: storage.isCluster) {
        case .route(let route):
            if route.requiresJSON { try JSONContentType.check(request.headers["content-type"]) }
            return route
        case .methodNotAllowed(let allow):
            throw .methodNotAllowed(allow: allow)
        case .notFound:
            throw Self.noEndpoint(request)
        }
    }

    /// 404 for a path no route serves; under `/tables/`, the Tables API's own answer (400 for a malformed escape in
    /// a table name or key, 404 naming the path otherwise).
    static func noEndpoint(_ request: HTTPRequest) -> APIError {
        if request.path.hasPrefix("/tables/") {
            do {
                _ = try TablesRoute.parse(rawPath: request.rawPath)
            } catch {
                return error
            }
        }
        return .notFound("no endpoint at \(request.method) \(printable(request.path))")
    }
}
