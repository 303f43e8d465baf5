import Dispatch
import Logging

/// HTTP/1.1 on a connection: a parsed request's way to the handler (or to HTTP/2, for `Upgrade: h2c`), its response
/// written with its head (``ResponseHead``), whole or streamed, and the connection's keep-alive decided per response.
extension HTTPConnection {
    // MARK: - Handing requests to the handler

    /// Answers a parsed HTTP/1.1 request: switches to HTTP/2 when it asks for `Upgrade: h2c`, else hands it to the
    /// handler (`dispatch(_:route:)`) with its response's keep-alive decided.
    func dispatchHTTP1(_ request: HTTPRequest) {
        let keepAlive = lifecycle.requestDispatched(keepAlive: request.keepAlive)
        headStartedAt = nil
        if limits.http2.enabled && !shuttingDown, let settings = HTTP2Upgrade.settingsPayload(of: request),
            upgradeToHTTP2(request, settingsPayload: settings)
        {
            return
        }
        dispatch(request, route: .http1(keepAlive: keepAlive))
    }

    /// Sends a whole HTTP/1.1 response (on `queue`).
    func respond(_ response: HTTPResponse, body: [UInt8], method: String, version: HTTPVersion, keepAlive: Bool) {
        guard !closed else { return }
        let keepAlive = keepAlive && !shuttingDown && !server.isShuttingDown.load(ordering: .relaxed)
        let hasContent = !response.status.forbidsContent
        // Head and body leave in one send; the head is written straight into the output.
        if pendingOutput == 0 { lastWriteProgressAt = loop.now }
        ResponseHead.write(
            status: response.status,
            headers: response.headers,
            framing: hasContent ? .contentLength(body.count) : .none,
            keepAlive: keepAlive,
            version: version,
            serverHeader: server.serverHeader,
            checked: &checkedFields,
            into: &output
        )
        if hasContent && method != "HEAD" {
            append(body)
        }
        maxObservedPendingOutput = max(maxObservedPendingOutput, pendingOutput)
        flush()
        finishResponse(keepAlive: keepAlive)
    }

    /// Answers a request the server refused itself with the handler's response to it
    /// (``HTTPHandler/response(to:)``) and closes the connection afterwards.
    func respondWithError(_ rejection: HTTPRejection) {
        guard !closed && !closing else { return }
        let (response, body) = server.handler.rejectionResponse(rejection)
        append(
            ResponseHead.serialize(
                status: response.status,
                headers: response.headers,
                framing: .contentLength(body.count),
                keepAlive: false,
                version: .http1_1,
                serverHeader: server.serverHeader,
                checked: &checkedFields
            )
        )
        enqueue(body)
        closeWhenFlushed()
    }

    private func finishResponse(keepAlive: Bool) {
        lifecycle.responseFinished()
        idleSince = loop.now
        if !keepAlive {
            closeWhenFlushed()
        }
        // Inside `processInput` (a response given on the loop) its loop goes on to the next request.
        processInput()
    }

    // MARK: - Streamed bodies (called on a handler thread)

    /// Sends a streamed HTTP/1.1 response as its producer writes it: chunked (close-delimited for HTTP/1.0), the head
    /// with the first piece, or a replacement response when the producer throws ``HTTPResponseReplacement`` first.
    func streamHTTP1(
        _ response: HTTPResponse,
        produce: @Sendable (HTTPBodyWriter) throws -> Void,
        for request: HTTPRequest,
        keepAlive: Bool
    ) {
        let method = request.method
        let version = request.version
        let hasContent = !response.status.forbidsContent
        // HTTP/1.0 has no chunked coding (RFC 9112 §7.1): the body then ends when the connection closes.
        let chunked = version == .http1_1
        let framing: ResponseHead.Framing = hasContent ? (chunked ? .chunked : .closeDelimited) : .none
        let started: (go: Bool, keepAlive: Bool, token: Int) = queue.sync {
            guard !closed else { return (false, false, 0) }
            let keepAlive = keepAlive && !shuttingDown && framing != .closeDelimited
            let head = ResponseHead.serialize(
                status: response.status,
                headers: response.headers,
                framing: framing,
                keepAlive: keepAlive,
                version: version,
                serverHeader: server.serverHeader,
                checked: &checkedFields
            )
            if !hasContent || method == "HEAD" {
                enqueue(head)
                finishResponse(keepAlive: keepAlive)
                return (false, keepAlive, 0)
            }
            // The head leaves with the first piece, so that a producer that fails before it can still answer
            // otherwise (HTTPResponseReplacement).
            pendingStreamHead = head
            streamCount += 1
            activeStream = streamCount
            return (true, keepAlive, streamCount)
        }
        guard started.go else { return }
        let writer = HTTPBodyWriter { [self] bytes in
            try writeStreamPiece(chunked ? ResponseHead.chunk(bytes) : bytes, stream: started.token)
        }
        do {
            try produce(writer)
            queue.sync {
                // A writer kept by the producer past its return must not write into the next response.
                activeStream = 0
                guard !closed else { return }
                if let head = pendingStreamHead {
                    pendingStreamHead = nil
                    append(head)
                }
                if chunked { enqueue(ResponseHead.lastChunk) }
                finishResponse(keepAlive: started.keepAlive)
            }
        } catch {
            queue.sync {
                activeStream = 0
                guard !closed else { return }
                if let replacement = error as? HTTPResponseReplacement, pendingStreamHead != nil,
                    case .bytes(let body) = replacement.response.body
                {
                    pendingStreamHead = nil
                    respond(
                        replacement.response,
                        body: body,
                        method: method,
                        version: version,
                        keepAlive: started.keepAlive
                    )
                    return
                }
                pendingStreamHead = nil
                logger.warning("streamed response failed, closing", metadata: ["error": "\(error)"])
                // The body cannot be completed correctly: a chunked body stays without its last chunk (the client
                // sees it is truncated); a close-delimited body is reset, since a clean close would look complete.
                perform(lifecycle.responseFailed(abortive: !chunked, pendingOutput: pendingOutput))
                updateTimer()
            }
        }
    }

    /// Queues one piece of a streamed body (after the response's head, the first time), blocking the calling
    /// (handler) thread while the output is over its bound.
    private func writeStreamPiece(_ bytes: [UInt8], stream: Int) throws {
        while true {
            let waiter: DispatchSemaphore? = try queue.sync {
                guard !closed && !lingering && activeStream == stream else {
                    throw stalledStream == stream ? HTTPServerError.streamStalled : HTTPServerError.connectionClosed
                }
                if pendingOutput <= limits.maxPendingOutput {
                    if let head = pendingStreamHead {
                        pendingStreamHead = nil
                        append(head)
                    }
                    enqueue(bytes)
                    updateTimer()
                    return nil
                }
                let semaphore = DispatchSemaphore(value: 0)
                drainWaiter = semaphore
                return semaphore
            }
            guard let waiter else { return }
            waiter.wait()
        }
    }
}
