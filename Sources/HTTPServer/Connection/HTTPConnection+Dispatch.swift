import Dispatch

/// Where a request's response goes: the HTTP/1.1 connection (whose one request in flight it is) or an HTTP/2
/// stream.
enum ResponseRoute: Sendable {
    /// HTTP/1.1 (or 1.0): the response may keep the connection open when `keepAlive`.
    case http1(keepAlive: Bool)
    /// HTTP/2: the response goes on this stream.
    case http2(streamID: Int32)
}

/// The one hand-off of a request to the handler, for both protocols: on the event loop when the handler can
/// (``HTTPHandler/handleOnEventLoop(_:)``), later when it takes the request to answer it from elsewhere
/// (``HTTPHandler/handleDeferred(_:respond:)``), otherwise on a handler thread. A whole response produced off the
/// loop comes back to `queue`; a streamed one is written from a handler thread, since its producer may block.
extension HTTPConnection {
    /// Always inlined: as a call, the request it takes (and captures) costs a retain and release of each of its
    /// fields (callgrind: about 70 instructions a request).
    @inline(__always) func dispatch(_ request: HTTPRequest, route: ResponseRoute) {
        if let response = server.handler.handleOnEventLoop(request) {
            deliver(response, to: request, route: route)
            return
        }
        // Deferred answers hold no handler thread: no share to count.
        let deferred = server.handler.handleDeferred(request) { [self] response in
            queue.async { [self] in deliver(response, to: request, route: route) }
        }
        if deferred { return }
        guard takeHandlerThread(for: request, route: route) else { return }
        server.handlerPool.submit { [self] in
            let response = server.handler.handle(request)
            if case .stream(let produce) = response.body {
                // Already off the loop: a producer may block here while the loop sends its output. A streamed body
                // keeps its handler thread (and an HTTP/2 connection's share of them) until its producer returns.
                stream(response, produce: produce, for: request, route: route)
                if case .http2 = route {
                    queue.async { [self] in releaseHandlerThread() }
                }
            } else {
                queue.async { [self] in
                    if case .http2 = route { releaseHandlerThread() }
                    deliver(response, to: request, route: route)
                }
            }
        }
    }

    /// Sends a response produced for `request` (on `queue`).
    private func deliver(_ response: HTTPResponse, to request: HTTPRequest, route: ResponseRoute) {
        switch response.body {
        case .bytes(let bytes):
            switch route {
            case .http1(let keepAlive):
                respond(response, body: bytes, method: request.method, version: request.version, keepAlive: keepAlive)
            case .http2(let streamID):
                deliverHTTP2(response, body: bytes, method: request.method, streamID: streamID)
            }
        case .stream(let produce):
            // A producer blocks in the writer until this queue has sent its output, so it must run elsewhere.
            server.handlerPool.submit { [self] in
                stream(response, produce: produce, for: request, route: route)
            }
        }
    }

    /// Writes a streamed response as its producer runs (on a handler thread).
    private func stream(
        _ response: HTTPResponse,
        produce: @Sendable (HTTPBodyWriter) throws -> Void,
        for request: HTTPRequest,
        route: ResponseRoute
    ) {
        switch route {
        case .http1(let keepAlive):
            streamHTTP1(response, produce: produce, for: request, keepAlive: keepAlive)
        case .http2(let streamID):
            streamHTTP2(response, produce: produce, method: request.method, streamID: streamID)
        }
    }

    /// Whether `request` may take a handler thread now. HTTP/1.1 has one request in flight at a time; one HTTP/2
    /// connection may not take every handler thread: past its share (`maxStreamsOnHandlerThreads`)
    /// its streams wait, in order, for one of its own to return.
    private func takeHandlerThread(for request: HTTPRequest, route: ResponseRoute) -> Bool {
        guard case .http2(let streamID) = route else { return true }
        guard http2OnHandlerThreads < max(limits.http2.maxStreamsOnHandlerThreads, 1) else {
            http2Waiting.append((request, streamID))
            return false
        }
        http2OnHandlerThreads += 1
        return true
    }

    /// An HTTP/2 stream's handler thread is free: hands the oldest waiting stream that is still open to the handler.
    private func releaseHandlerThread() {
        http2OnHandlerThreads -= 1
        while !closed, let session = http2, !http2Waiting.isEmpty {
            let (request, streamID) = http2Waiting.removeFirst()
            // A stream the client reset meanwhile is dropped.
            guard session.isOpen(streamID) else { continue }
            dispatch(request, route: .http2(streamID: streamID))
            return
        }
    }
}
