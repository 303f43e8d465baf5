import Dispatch
import Logging

extension Connection {
    // MARK: - Handing requests to the handler

    /// Answers `request`: on the event loop when the handler can (`handleOnEventLoop`), later when it takes the
    /// request to answer it from elsewhere (`handleDeferred`), otherwise on a handler thread; a response produced
    /// off the loop comes back to `queue`.
    func dispatch(_ request: HTTPRequest) {
        inFlight = true
        headStartedAt = nil
        if limits.http2.enabled && !shuttingDown, let settings = HTTP2Upgrade.settingsPayload(of: request),
            upgradeToHTTP2(request, settingsPayload: settings)
        {
            return
        }
        let keepAlive = request.keepAlive && !shuttingDown
        if let response = server.handler.handleOnEventLoop(request) {
            deliver(response, to: request, keepAlive: keepAlive)
            return
        }
        let deferred = server.handler.handleDeferred(request) { [self] response in
            queue.async { [self] in deliver(response, to: request, keepAlive: keepAlive) }
        }
        if deferred { return }
        server.handlerPool.submit { [self] in
            let response = server.handler.handle(request)
            if case .stream(let produce) = response.body {
                // Already off the loop: a producer may block here while the loop sends its output.
                stream(response, produce: produce, for: request, keepAlive: keepAlive)
            } else {
                queue.async { [self] in
                    deliver(response, to: request, keepAlive: keepAlive)
                }
            }
        }
    }

    /// Sends a response produced for `request` (on `queue`).
    private func deliver(_ response: HTTPResponse, to request: HTTPRequest, keepAlive: Bool) {
        switch response.body {
        case .bytes(let bytes):
            respond(response, body: bytes, method: request.method, version: request.version, keepAlive: keepAlive)
        case .stream(let produce):
            // A producer blocks in the writer until this queue has sent its output, so it must run elsewhere.
            server.handlerPool.submit { [self] in
                stream(response, produce: produce, for: request, keepAlive: keepAlive)
            }
        }
    }

    private func respond(_ response: HTTPResponse, body: [UInt8], method: String, version: HTTPVersion, keepAlive: Bool)
    {
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

    /// Answers with the contract's JSON error body and closes the connection afterwards.
    func respondWithError(status: HTTPStatus, code: String, message: String) {
        guard !closed && !closing else { return }
        let response = HTTPResponse.jsonError(status: status, code: code, message: message)
        guard case .bytes(let body) = response.body else { return }
        append(
            ResponseHead.serialize(
                status: status,
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
        inFlight = false
        idleSince = loop.now
        if !keepAlive {
            closeWhenFlushed()
        }
        // Inside `processInput` (a response given on the loop) its loop goes on to the next request.
        processInput()
    }

    // MARK: - Streamed bodies (called on a handler thread)

    private func stream(
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
                inFlight = false
                if !chunked { abortOnClose = true }
                closeWhenFlushed()
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

    // MARK: - Output

    /// Queues `bytes` and sends what the socket takes.
    func enqueue(_ bytes: [UInt8]) {
        append(bytes)
        flush()
    }

    /// Queues `bytes` without sending yet.
    func append(_ bytes: [UInt8]) {
        guard !closed, !bytes.isEmpty else { return }
        if pendingOutput == 0 { lastWriteProgressAt = loop.now }
        output.append(contentsOf: bytes)
        maxObservedPendingOutput = max(maxObservedPendingOutput, pendingOutput)
    }

    func handleWritable() {
        flush()
        processInput()
    }

    /// Sends as much as the socket takes; the socket is watched for writability only while output is waiting.
    func flush() {
        guard !closed else { return }
        while outputOffset < output.count {
            let result: IOResult<Int>
            do {
                result = try output.withUnsafeBytes { raw in
                    try Socket.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                logger.debug("write failed, closing", metadata: ["error": "\(error)"])
                close()
                return
            }
            guard case .done(let count) = result else { break }
            outputOffset += count
            lastWriteProgressAt = loop.now
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
        } else if outputOffset >= 64 * 1024 {
            output.removeSubrange(0..<outputOffset)
            outputOffset = 0
        }
        let wanted = outputOffset < output.count
        if wanted != wantsWrite {
            wantsWrite = wanted
            updateInterest()
        }
        if pendingOutput <= limits.maxPendingOutput, let waiter = drainWaiter {
            drainWaiter = nil
            waiter.signal()
        }
        if pendingOutput == 0 && closing {
            closeWhenFlushed()
        }
    }
}
