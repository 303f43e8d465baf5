import CNGHTTP2
import Dispatch

/// A response body produced while it is sent: its producer (on a handler thread, through the connection's queue)
/// appends, libnghttp2's data provider takes as the client's flow-control window allows, and the producer waits
/// while more than ``HTTPLimits/maxStreamBuffer`` bytes are waiting.
///
/// `@unchecked Sendable`: touched only on the connection's queue (the producer reaches it through `queue.sync`),
/// except `waiter`, a semaphore, which the producer waits on outside the queue.
final class StreamedBody: @unchecked Sendable {
    fileprivate var buffer: [UInt8] = []
    fileprivate var offset = 0
    fileprivate var finished = false
    /// Whether the data provider last answered `NGHTTP2_ERR_DEFERRED` (the stream waits for `resume`).
    fileprivate var deferred = false
    /// When the client last took bytes, or bytes arrived to an empty buffer (uptime nanoseconds).
    fileprivate var lastProgress: UInt64
    /// Why writes fail from now on: the stream was closed, reset or cut for stalling.
    private(set) var ended: HTTPServerError?
    /// The producer waiting for room, signalled when the buffer drains below the bound or the stream ends.
    var waiter: DispatchSemaphore?

    init(now: UInt64) {
        lastProgress = now
    }

    /// Bytes produced and not yet taken by libnghttp2.
    var pending: Int { buffer.count - offset }

    fileprivate func end(_ error: HTTPServerError) {
        if ended == nil { ended = error }
        waiter?.signal()
        waiter = nil
    }
}

extension HTTP2Session {
    /// Queues the HEADERS of a response whose body is produced while it is sent (no `content-length`): DATA frames
    /// follow as ``appendStreamed(_:to:now:)`` gives bytes, under the client's flow control, and END_STREAM once
    /// ``finishStreamed(_:)`` is called. Nil when the stream is gone (reset by the client).
    func respondStreamed(
        streamID: Int32,
        status: Int,
        now: UInt64,
        fields addFields: (HTTP2ResponseFields) -> Void
    ) throws(ProtocolError) -> StreamedBody? {
        answering.remove(streamID)
        guard isOpen(streamID) else { return nil }
        let body = StreamedBody(now: now)
        streamedBodies[streamID] = body
        responseFields.reset(status: status)
        addFields(responseFields)
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamID, buffer, capacity, flags, _, user in
            guard let buffer, let flags, let session = HTTP2Session.from(user) else {
                return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
            }
            return session.readBody(streamID: streamID, into: buffer, capacity: capacity, flags: flags)
        }
        let result = responseFields.withNameValues { nameValues in
            nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, &provider)
        }
        if result != 0 {
            streamedBodies[streamID] = nil
            throw ProtocolError(code: Int(result))
        }
        return body
    }

    /// Appends the next piece of a streamed body and wakes its stream's data provider.
    func appendStreamed(_ bytes: [UInt8], to streamID: Int32, now: UInt64) {
        guard let body = streamedBodies[streamID], body.ended == nil else { return }
        if body.pending == 0 { body.lastProgress = now }
        if body.offset > 0 && body.offset >= body.buffer.count / 2 {
            body.buffer.removeSubrange(0..<body.offset)
            body.offset = 0
        }
        body.buffer += bytes
        resume(streamID, body)
    }

    /// Marks a streamed body complete: END_STREAM follows its last bytes.
    func finishStreamed(_ streamID: Int32) {
        guard let body = streamedBodies[streamID] else { return }
        body.finished = true
        resume(streamID, body)
    }

    private func resume(_ streamID: Int32, _ body: StreamedBody) {
        guard body.deferred else { return }
        body.deferred = false
        _ = nghttp2_session_resume_data(session, streamID)
    }

    /// The data provider of a streamed body: what is buffered, END_STREAM after the last byte, or
    /// `NGHTTP2_ERR_DEFERRED` while the producer has nothing new.
    func readStreamed(
        _ body: StreamedBody,
        streamID: Int32,
        into buffer: UnsafeMutablePointer<UInt8>,
        capacity: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        let count = min(capacity, body.pending)
        if count > 0 {
            body.buffer.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + body.offset, count: count)
            }
            body.offset += count
            body.lastProgress = DispatchTime.now().uptimeNanoseconds
        }
        if body.pending == 0 {
            body.buffer.removeAll(keepingCapacity: true)
            body.offset = 0
        }
        if body.pending <= limits.maxStreamBuffer, let waiter = body.waiter {
            body.waiter = nil
            waiter.signal()
        }
        if body.pending == 0 && body.finished {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            streamedBodies[streamID] = nil
            return count
        }
        if count == 0 {
            body.deferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        return count
    }

    /// Ends a streamed body's writes with `error` (its stream closed or reset) and wakes its producer.
    func endStreamedBody(_ streamID: Int32, _ error: HTTPServerError) {
        guard let body = streamedBodies.removeValue(forKey: streamID) else { return }
        body.end(error)
    }

    /// Ends every streamed body (the connection is closing).
    func endAllStreamedBodies() {
        for (streamID, _) in streamedBodies { endStreamedBody(streamID, HTTPServerError.connectionClosed) }
    }

    /// When the streamed body that has waited longest for its client last made progress (uptime nanoseconds); nil
    /// when no streamed body has bytes waiting.
    var oldestStreamedProgress: UInt64? {
        var oldest: UInt64?
        for (_, body) in streamedBodies where body.pending > 0 || body.waiter != nil {
            oldest = min(oldest ?? body.lastProgress, body.lastProgress)
        }
        return oldest
    }

    /// Resets (`CANCEL`) the streams whose streamed body has had bytes waiting, untaken, since before `deadline`;
    /// their producers' writes fail with `.streamStalled`. Returns their ids.
    func resetStalledStreamedBodies(before deadline: UInt64) -> [Int32] {
        var stalled: [Int32] = []
        for (streamID, body) in streamedBodies
        where (body.pending > 0 || body.waiter != nil) && body.lastProgress < deadline {
            stalled.append(streamID)
        }
        for streamID in stalled {
            streamedBodies.removeValue(forKey: streamID)?.end(HTTPServerError.streamStalled)
            reset(streamID: streamID, code: UInt32(NGHTTP2_CANCEL.rawValue))
        }
        return stalled
    }
}
