import Dispatch
import Logging

extension Connection {
    // MARK: - Handing requests to the handler

    /// Runs the handler on the handler queue; the response comes back to `queue`.
    func dispatch(_ request: HTTPRequest) {
        inFlight = true
        headStartedAt = nil
        let keepAlive = request.keepAlive && !shuttingDown
        // The handler runs here, on this connection's serial queue: one request at a time per connection is the
        // protocol's order anyway, and handing every request to another thread and back cost two context switches
        // per request (measured: the server was 10x slower than nginx on a fixed response). The queue targets an
        // overcommitting root queue (a serial queue's default), so a handler that blocks (SQLite) makes libdispatch
        // start another thread for the other connections instead of stalling them.
        let response = server.handler.handle(request)
        switch response.body {
        case .bytes(let bytes):
            respond(response, body: bytes, method: request.method, version: request.version, keepAlive: keepAlive)
        case .stream(let produce):
            // A producer blocks in the writer until this queue has sent its output, so it must run elsewhere.
            server.handlerPool.submit { [self] in
                stream(
                    response,
                    produce: produce,
                    method: request.method,
                    version: request.version,
                    keepAlive: keepAlive
                )
            }
        }
    }

    private func respond(_ response: HTTPResponse, body: [UInt8], method: String, version: HTTPVersion, keepAlive: Bool)
    {
        guard !closed else { return }
        let keepAlive = keepAlive && !shuttingDown && !server.isShuttingDown.load(ordering: .relaxed)
        let hasContent = !response.status.forbidsContent
        enqueue(
            ResponseHead.serialize(
                status: response.status,
                headers: response.headers,
                framing: hasContent ? .contentLength(body.count) : .none,
                keepAlive: keepAlive,
                version: version,
                serverHeader: server.configuration.serverHeader
            )
        )
        if hasContent && method != "HEAD" {
            enqueue(body)
        }
        finishResponse(keepAlive: keepAlive)
    }

    /// Answers with the contract's JSON error body and closes the connection afterwards.
    func respondWithError(status: HTTPStatus, code: String, message: String) {
        guard !closed && !closing else { return }
        let response = HTTPResponse.jsonError(status: status, code: code, message: message)
        guard case .bytes(let body) = response.body else { return }
        enqueue(
            ResponseHead.serialize(
                status: status,
                headers: response.headers,
                framing: .contentLength(body.count),
                keepAlive: false,
                version: .http1_1,
                serverHeader: server.configuration.serverHeader
            )
        )
        enqueue(body)
        closeWhenFlushed()
    }

    private func finishResponse(keepAlive: Bool) {
        inFlight = false
        idleSince = .now()
        if !keepAlive {
            closeWhenFlushed()
        }
        processInput()
    }

    // MARK: - Streamed bodies (called on a handler thread)

    private func stream(
        _ response: HTTPResponse,
        produce: @Sendable (HTTPBodyWriter) throws -> Void,
        method: String,
        version: HTTPVersion,
        keepAlive: Bool
    ) {
        let hasContent = !response.status.forbidsContent
        // HTTP/1.0 has no chunked coding (RFC 9112 §7.1): the body then ends when the connection closes.
        let chunked = version == .http1_1
        let framing: ResponseHead.Framing = hasContent ? (chunked ? .chunked : .closeDelimited) : .none
        let started: (go: Bool, keepAlive: Bool, token: Int) = queue.sync {
            guard !closed else { return (false, false, 0) }
            let keepAlive = keepAlive && !shuttingDown && framing != .closeDelimited
            enqueue(
                ResponseHead.serialize(
                    status: response.status,
                    headers: response.headers,
                    framing: framing,
                    keepAlive: keepAlive,
                    version: version,
                    serverHeader: server.configuration.serverHeader
                )
            )
            if !hasContent || method == "HEAD" {
                finishResponse(keepAlive: keepAlive)
                return (false, keepAlive, 0)
            }
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
                if chunked { enqueue(ResponseHead.lastChunk) }
                finishResponse(keepAlive: started.keepAlive)
            }
        } catch {
            queue.sync {
                activeStream = 0
                guard !closed else { return }
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

    /// Queues one piece of a streamed body, blocking the calling (handler) thread while the output is over its bound.
    private func writeStreamPiece(_ bytes: [UInt8], stream: Int) throws {
        while true {
            let waiter: DispatchSemaphore? = try queue.sync {
                guard !closed && !lingering && activeStream == stream else { throw HTTPServerError.connectionClosed }
                if pendingOutput <= limits.maxPendingOutput {
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

    func enqueue(_ bytes: [UInt8]) {
        guard !closed, !bytes.isEmpty else { return }
        if pendingOutput == 0 { lastWriteProgressAt = .now() }
        output.append(contentsOf: bytes)
        maxObservedPendingOutput = max(maxObservedPendingOutput, pendingOutput)
        flush()
    }

    func handleWritable() {
        flush()
        processInput()
    }

    /// Sends as much as the socket takes; the write source is resumed only while output is waiting.
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
            lastWriteProgressAt = .now()
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
            if !writeSuspended, let writeSource {
                writeSource.suspend()
                writeSuspended = true
            }
        } else {
            if outputOffset >= 64 * 1024 {
                output.removeSubrange(0..<outputOffset)
                outputOffset = 0
            }
            if let writeSource {
                if writeSuspended {
                    writeSource.resume()
                    writeSuspended = false
                }
            } else {
                let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
                source.setEventHandler { [self] in handleWritable() }
                source.setCancelHandler { [self] in sourceCancelled() }
                writeSource = source
                writeSuspended = false
                source.activate()
                // See `writeSource`: a read event lost while registering is recovered by reading once more.
                queue.async { [self] in pollReadable() }
            }
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
