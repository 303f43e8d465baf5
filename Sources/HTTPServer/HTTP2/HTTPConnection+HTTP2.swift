import Dispatch
import Logging
import Synchronization

/// HTTP/2 (h2c) on a connection: chosen by the client preface (prior knowledge) or by `Upgrade: h2c`, then driven by
/// an ``HTTP2Session`` on the connection's event loop.
///
/// Each stream becomes the same ``HTTPRequest`` the HTTP/1.1 parser builds (version ``HTTPVersion/http2``) and goes
/// to the handler through the same hand-off (`HTTPConnection+Dispatch`): the streams of a connection are answered
/// concurrently and each response is sent as soon as it is ready. Output is taken from the session only
/// while the connection's unsent output is under ``HTTPLimits/maxPendingOutput``; the rest waits in the session,
/// under the client's flow control.
extension HTTPConnection {
    // MARK: - Switching to HTTP/2

    /// Serves the connection as HTTP/2 from `initialBytes`, which begin with the client preface.
    func startHTTP2(session: HTTP2Session, initialBytes: UnsafeRawBufferPointer) {
        http2 = session
        idleSince = loop.now
        logger.trace("serving HTTP/2")
        receiveHTTP2(initialBytes, session: session)
    }

    /// Switches to HTTP/2 for an HTTP/1.1 request with `Upgrade: h2c` (RFC 7540 §3.2): `101 Switching Protocols`,
    /// the server's SETTINGS, then the request's response on stream 1. False when its `HTTP2-Settings` is not a
    /// valid SETTINGS payload: the request is then served as HTTP/1.1.
    func upgradeToHTTP2(_ request: HTTPRequest, settingsPayload: [UInt8]) -> Bool {
        guard
            let session = HTTP2Session(
                upgradingWith: settingsPayload,
                headRequest: request.method == "HEAD",
                limits: limits
            )
        else { return false }
        append(HTTP2Upgrade.switchingProtocols)
        prefaceProbe = nil
        lifecycle.upgradedToHTTP2()
        // What the client sent after the request (its preface, its first frames) belongs to the session.
        let rest = parser.takeBufferedBytes()
        parser = RequestParser(limits: limits)
        http2 = session
        var upgraded = request
        upgraded.version = .http2
        upgraded.keepAlive = true
        dispatchHTTP2(upgraded, streamID: 1)
        if !rest.isEmpty {
            rest.withUnsafeBytes { receiveHTTP2($0, session: session) }
        }
        processHTTP2(session)
        return true
    }

    // MARK: - Receiving

    func receiveHTTP2(_ bytes: UnsafeRawBufferPointer, session: HTTP2Session) {
        lastReadAt = loop.now
        do {
            try session.receive(bytes, now: lastReadAt.uptimeNanoseconds)
        } catch {
            if let flood = session.floodDetected {
                logFlood(flood)
            } else {
                logger.debug("HTTP/2 protocol error, closing", metadata: ["nghttp2_error": "\(error.code)"])
            }
            sendHTTP2Output(session)
            closeWhenFlushed()
            return
        }
        // Responses given on the loop for the streams of this read leave together, after the loop below.
        collectingHTTP2Output = true
        defer { collectingHTTP2Output = false }
        // Taken out of the session one by one (moved, not copied): each request's fields are released once.
        session.takeEvents(swappingWith: &http2Events)
        http2Events.reverse()
        while let event = http2Events.popLast() {
            switch event {
            case .request(let streamID, let head, let body, let trailers):
                // A stream the client reset in the same read (rapid reset) costs no handler work.
                guard session.isOpen(streamID) else { continue }
                do {
                    var request = try HTTPRequest.fromHTTP2(
                        head: head,
                        body: body,
                        limits: limits,
                        remoteAddress: remoteAddress,
                        cache: &http2RequestCache
                    )
                    if !trailers.isEmpty { request.trailers = HTTPHeaders(trailers.map { ($0.name, $0.value) }) }
                    dispatchHTTP2(request, streamID: streamID)
                } catch {
                    respondHTTP2(error, streamID: streamID)
                }
            case .reject(let streamID, let rejection):
                respondHTTP2(rejection, streamID: streamID)
            }
        }
        if let flood = session.floodDetected, !closing {
            logFlood(flood)
            sendHTTP2Output(session)
            closeWhenFlushed()
        }
    }

    private func logFlood(_ flood: String) {
        logger.warning("HTTP/2 flood, sending GOAWAY ENHANCE_YOUR_CALM and closing", metadata: ["flood": "\(flood)"])
    }

    // MARK: - Answering

    private func dispatchHTTP2(_ request: HTTPRequest, streamID: Int32) {
        dispatch(request, route: .http2(streamID: streamID))
    }

    private func respondHTTP2(_ rejection: RequestParser.Rejection, streamID: Int32) {
        let (response, body) = server.handler.rejectionResponse(rejection.asHTTPRejection)
        deliverHTTP2(response, body: body, method: "GET", streamID: streamID)
    }

    /// Queues `response` on its stream and sends what the connection may (on `queue`).
    func deliverHTTP2(_ response: HTTPResponse, body: [UInt8], method: String, streamID: Int32) {
        guard !closed, let session = http2 else { return }
        let hasContent = !response.status.forbidsContent
        let serverHeader = server.serverHeader
        do {
            try session.respond(
                streamID: streamID,
                status: Int(response.status.code),
                body: hasContent && method != "HEAD" ? body : []
            ) { fields in
                fields.appendDate()
                fields.appendFields(of: response.headers, server: serverHeader)
                if hasContent { fields.append("content-length", decimal: body.count) }
            }
        } catch {
            logger.debug("cannot queue an HTTP/2 response, closing", metadata: ["nghttp2_error": "\(error.code)"])
            close()
            return
        }
        if !session.hasActiveStreams { idleSince = loop.now }
        if !collectingHTTP2Output { processInput() }
    }

    // MARK: - Streamed bodies (called on a handler thread)

    /// Sends a streamed response on `streamID` as its producer writes it: HEADERS with the first piece (or a
    /// replacement response when the producer throws ``HTTPResponseReplacement`` before writing), DATA frames under
    /// the client's flow control through the stream's bounded buffer (``StreamedBody``), END_STREAM when the
    /// producer returns; `RST_STREAM INTERNAL_ERROR` when it fails after its first piece, so a cut body is never
    /// taken for a whole one.
    func streamHTTP2(
        _ response: HTTPResponse,
        produce: @Sendable (HTTPBodyWriter) throws -> Void,
        method: String,
        streamID: Int32
    ) {
        if response.status.forbidsContent || method == "HEAD" {
            queue.async { [self] in deliverHTTP2(response, body: [], method: method, streamID: streamID) }
            return
        }
        let state = HTTP2StreamedResponse()
        let writer = HTTPBodyWriter { [self] bytes in
            try writeHTTP2StreamPiece(bytes, of: response, streamID: streamID, state: state)
        }
        do {
            try produce(writer)
            queue.sync {
                guard !closed, let session = http2 else { return }
                if state.body == nil {
                    deliverHTTP2(response, body: [], method: method, streamID: streamID)
                    return
                }
                session.finishStreamed(streamID)
                processInput()
            }
        } catch {
            queue.sync {
                guard !closed, let session = http2 else { return }
                if state.body == nil, let replacement = error as? HTTPResponseReplacement,
                    case .bytes(let body) = replacement.response.body
                {
                    deliverHTTP2(replacement.response, body: body, method: method, streamID: streamID)
                    return
                }
                if state.body?.ended == nil {
                    logger.warning("streamed response failed, resetting the stream", metadata: ["error": "\(error)"])
                    session.reset(streamID: streamID, code: 2)  // INTERNAL_ERROR
                }
                processInput()
            }
        }
    }

    /// Queues one piece of a streamed body on its stream (its HEADERS first, the first time), blocking the calling
    /// (handler) thread while the stream's buffer is over ``HTTPLimits/maxStreamBuffer``.
    private func writeHTTP2StreamPiece(
        _ bytes: [UInt8],
        of response: HTTPResponse,
        streamID: Int32,
        state: HTTP2StreamedResponse
    ) throws {
        while true {
            let waiter: DispatchSemaphore? = try queue.sync {
                guard !closed, let session = http2 else { throw HTTPServerError.connectionClosed }
                if state.body == nil {
                    let serverHeader = server.serverHeader
                    let body: StreamedBody?
                    do throws(HTTP2Session.ProtocolError) {
                        body = try session.respondStreamed(
                            streamID: streamID,
                            status: Int(response.status.code),
                            now: loop.now.uptimeNanoseconds
                        ) { fields in
                            fields.appendDate()
                            fields.appendFields(of: response.headers, server: serverHeader)
                        }
                    } catch {
                        logger.debug(
                            "cannot queue an HTTP/2 response, closing",
                            metadata: ["nghttp2_error": "\(error.code)"]
                        )
                        close()
                        throw HTTPServerError.connectionClosed
                    }
                    guard let body else { throw HTTPServerError.connectionClosed }
                    state.body = body
                }
                guard let body = state.body else { throw HTTPServerError.connectionClosed }
                if let ended = body.ended { throw ended }
                if body.pending <= limits.maxStreamBuffer {
                    session.appendStreamed(bytes, to: streamID, now: loop.now.uptimeNanoseconds)
                    if !collectingHTTP2Output { processInput() }
                    return nil
                }
                let semaphore = DispatchSemaphore(value: 0)
                body.waiter = semaphore
                return semaphore
            }
            guard let waiter else { return }
            waiter.wait()
        }
    }

    // MARK: - Driving the session

    /// The HTTP/2 counterpart of `processInput`: sends what the session has, and closes once the session is over
    /// (a GOAWAY both ways, a fatal error, the end of a graceful shutdown, or a client that closed its side).
    func processHTTP2(_ session: HTTP2Session) {
        guard !closed && !lingering else { return }
        sendHTTP2Output(session)
        if !closing {
            let finished =
                !session.wantsToContinue
                || ((shuttingDown || peerClosedInput) && !session.hasActiveStreams)
            if finished { closeWhenFlushed() }
        }
        updateReadInterest()
        updateTimer()
    }

    /// Moves the session's output to the connection's while it is under its bound, and sends it.
    private func sendHTTP2Output(_ session: HTTP2Session) {
        while !closed && pendingOutput <= limits.maxPendingOutput {
            let before = output.count
            if pendingOutput == 0 { lastWriteProgressAt = loop.now }
            do {
                // Straight into the connection's output: the bound is on the unsent bytes, as `append` counts them.
                try session.takeOutput(into: &output, upTo: outputOffset + limits.maxPendingOutput + 1)
            } catch {
                logger.debug("HTTP/2 session failed, closing", metadata: ["nghttp2_error": "\(error.code)"])
                close()
                return
            }
            guard output.count > before else { break }
            maxObservedPendingOutput = max(maxObservedPendingOutput, pendingOutput)
            flush()
        }
        flush()
    }

    /// Graceful shutdown: GOAWAY with the last stream seen; the streams in progress finish, then the connection
    /// closes.
    func beginHTTP2Shutdown(_ session: HTTP2Session) {
        guard !closed else { return }
        lifecycle.beginDraining()
        session.goAway()
        processHTTP2(session)
    }

    // MARK: - Timers

    func updateHTTP2Timer(_ session: HTTP2Session) {
        if let progress = session.oldestStreamedProgress {
            let stallDeadline =
                DispatchTime(uptimeNanoseconds: progress) + limits.streamStallTimeout.dispatchInterval
            let sendDeadline = lastWriteProgressAt + limits.sendTimeout.dispatchInterval
            if pendingOutput == 0 || stallDeadline < sendDeadline {
                setTimer(.streamStall, stallDeadline)
                return
            }
        }
        if pendingOutput > 0 {
            setTimer(.send, lastWriteProgressAt + limits.sendTimeout.dispatchInterval)
        } else if let oldest = session.oldestIncomingActivity {
            setTimer(
                .bodyInactivity,
                DispatchTime(uptimeNanoseconds: oldest) + limits.bodyInactivityTimeout.dispatchInterval
            )
        } else if !session.hasActiveStreams && !closing {
            setTimer(.idle, idleSince + limits.idleTimeout.dispatchInterval)
        } else {
            setTimer(.none, .distantFuture)
        }
    }

    func handleHTTP2Tick(_ session: HTTP2Session) {
        switch timerPurpose {
        case .none, .headDeadline:
            break
        case .idle:
            logger.trace("HTTP/2 idle timeout, GOAWAY and closing")
            session.goAway()
            sendHTTP2Output(session)
            closeWhenFlushed()
        case .bodyInactivity:
            let cutoff = DispatchTime.now() - limits.bodyInactivityTimeout.dispatchInterval
            for streamID in session.stalledStreams(before: cutoff.uptimeNanoseconds + 1) {
                logger.debug("HTTP/2 request body timeout", metadata: ["stream": "\(streamID)"])
                respondHTTP2(
                    RequestParser.Rejection(
                        status: .requestTimeout,
                        code: "REQUEST_TIMEOUT",
                        message: "request not received in time"
                    ),
                    streamID: streamID
                )
            }
            processHTTP2(session)
        case .streamStall:
            let cutoff = DispatchTime.now() - limits.streamStallTimeout.dispatchInterval
            for streamID in session.resetStalledStreamedBodies(before: cutoff.uptimeNanoseconds + 1) {
                logger.info(
                    "client stopped reading a streamed response, resetting the stream",
                    metadata: ["stream": "\(streamID)"]
                )
            }
            processHTTP2(session)
        case .send:
            logger.debug("client not reading its HTTP/2 responses, closing")
            close()
        case .linger:
            close()
        }
    }
}

/// What a streamed HTTP/2 response's writer knows across its pieces: the stream's body once its HEADERS are queued.
///
/// `@unchecked Sendable`: read and written only on the connection's queue (the writer reaches it through
/// `queue.sync`).
final class HTTP2StreamedResponse: @unchecked Sendable {
    var body: StreamedBody?
}
