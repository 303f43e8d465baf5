public import HTTPServer

/// Writes taken on the event loop and answered by the group commit's leader: no handler thread waits per request.
///
/// With group commit on, every write request (`/update`, `/batch`, `/transaction`, the Tables API's `POST`, `PATCH`
/// and `DELETE`) is decoded and checked on the event loop, queued for the next group, and answered — its metrics
/// and request log line recorded — by the thread that committed its group, once the `COMMIT` (its fsync) is over.
/// A handler thread per waiting request cost every write two thread wake-ups (to start on a handler thread, and to
/// be woken by the leader), which on one core took more time than the write itself. Bodies larger than
/// ``eventLoopBodyLimit`` (decoding them could hold the loop) and every write with group commit off still go to a
/// handler thread (``handle(_:)``), with the same answers.
extension SQLiteService {
    public func handleDeferred(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        let started = ContinuousClock.now
        let settings = self.settings
        let groupCommit = settings.options.groupCommit
        // Group commit is off on the cluster backend (each Raft round is its own group).
        guard case .local = storage, groupCommit.isEnabled, request.body.count <= Self.eventLoopBodyLimit else {
            return false
        }
        let endpoint = ServiceEndpoint(path: request.path)
        switch endpoint {
        case .update, .batch, .transaction: break
        case .tablesRows, .tablesRow: guard request.method != "GET" && request.method != "HEAD" else { return false }
        default: return false
        }
        let finish: @Sendable (ServiceResponse) -> Void = { handled in
            self.observe(request, endpoint: endpoint, handled: handled, since: started, options: settings.options)
            respond(handled.response)
        }
        var tokenName: String?
        let write: PreparedWrite
        do {
            tokenName = try authenticate(request, tokens: settings.tokens)
            let limits = settings.limits
            switch endpoint {
            case .update, .batch, .transaction:
                try Self.requirePostWithJSON(request)
                write =
                    switch endpoint {
                    case .update: try update(request.body, limits: limits)
                    case .batch: try batch(request.body, limits: limits)
                    default: try transaction(request.body, limits: limits)
                    }
            default:
                guard let tablesWrite = try tablesWrite(request, limits: limits) else { return false }
                write = tablesWrite
            }
        } catch {
            finish(failure(error, answering: request, tokenName: tokenName))
            return true
        }
        onWriterInGroupDeferred(write, metrics: settings.options.metrics, options: groupCommit) { [tokenName] result in
            switch result {
            case .success(let response): finish(ServiceResponse(response: response, tokenName: tokenName))
            case .failure(let error): finish(self.failure(error, answering: request, tokenName: tokenName))
            }
        }
        return true
    }
}
