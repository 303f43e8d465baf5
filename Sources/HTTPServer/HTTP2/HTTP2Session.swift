import CNGHTTP2

/// One libnghttp2 server session, driven in memory: the connection feeds it the socket's bytes
/// (`receive`) and writes what it produces (`takeOutput`); it never reads or writes a socket itself,
/// so it never blocks an event loop. Not thread-safe: one event loop owns it.
final class HTTP2Session {
    /// A request stream whose headers and body have all arrived.
    struct CompletedStream: Equatable, Sendable {
        var streamID: Int32
        /// Header fields in arrival order, pseudo-headers (`:method`, `:path`, …) included.
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.streamID == rhs.streamID && lhs.body == rhs.body
                && lhs.headers.map(\.name) == rhs.headers.map(\.name)
                && lhs.headers.map(\.value) == rhs.headers.map(\.value)
        }
    }

    /// Why the session must end: the connection sends what `takeOutput` returns, then closes.
    struct ProtocolError: Error, Equatable { var code: Int }

    private var session: OpaquePointer?
    private var open: [Int32: CompletedStream] = [:]
    /// Response bodies not yet handed to libnghttp2 as DATA frames, per stream: the data provider reads
    /// from here as the peer's flow-control window allows.
    private var pendingBodies: [Int32: ArraySlice<UInt8>] = [:]
    /// Streams completed since the last `receive`.
    private(set) var completed: [CompletedStream] = []

    init(maxConcurrentStreams: UInt32) {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0, "nghttp2: out of memory")
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            HTTP2Session.from(user).open[streamID] = CompletedStream(streamID: streamID, headers: [], body: [])
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _,
            frame,
            name,
            nameLength,
            value,
            valueLength,
            _,
            user in
            guard let frame, let name, let value, let user else { return 0 }
            let field = (
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            )
            HTTP2Session.from(user).open[frame.pointee.hd.stream_id]?.headers.append(field)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data, let user else { return 0 }
            HTTP2Session.from(user).open[streamID]?.body += UnsafeBufferPointer(start: data, count: length)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let header = frame.pointee.hd
            let type = UInt32(header.type)
            guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
                header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            else { return 0 }
            let session = HTTP2Session.from(user)
            if let stream = session.open.removeValue(forKey: header.stream_id) {
                session.completed.append(stream)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, user in
            guard let user else { return 0 }
            let session = HTTP2Session.from(user)
            session.open[streamID] = nil
            session.pendingBodies[streamID] = nil
            return 0
        }
        precondition(
            nghttp2_session_server_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            "nghttp2: out of memory"
        )
        var setting = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            value: maxConcurrentStreams
        )
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &setting, 1)
    }

    deinit { nghttp2_session_del(session) }

    private static func from(_ user: UnsafeMutableRawPointer) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue()
    }

    /// Feeds bytes received from the socket; afterwards `completed` holds the streams they finished.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) {
        completed.removeAll(keepingCapacity: true)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let result = nghttp2_session_mem_recv(session, base, bytes.count)
        if result < 0 { throw ProtocolError(code: Int(result)) }
    }

    /// Queues a response on `streamID`: a HEADERS frame (`:status` first, then `headers`), then `body`
    /// as DATA frames under flow control, the last with END_STREAM. Header names must be lower case.
    func respond(
        streamID: Int32,
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8]
    )
        throws(ProtocolError)
    {
        let fields = [(name: ":status", value: String(status))] + headers
        pendingBodies[streamID] = body[...]
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamID, buffer, capacity, flags, _, user in
            guard let buffer, let flags, let user else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            let session = HTTP2Session.from(user)
            let remaining = session.pendingBodies[streamID] ?? []
            let count = min(capacity, remaining.count)
            remaining.prefix(count).withUnsafeBytes { source in
                guard let base = source.baseAddress else { return }
                buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
            }
            if count == remaining.count {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                session.pendingBodies[streamID] = nil
            } else {
                session.pendingBodies[streamID] = remaining.dropFirst(count)
            }
            return count
        }
        let result = withNameValues(fields) { nameValues in
            nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, &provider)
        }
        if result != 0 { throw ProtocolError(code: Int(result)) }
    }

    /// Calls `body` with libnghttp2 name/value pairs for `fields` (nghttp2 copies them before returning).
    private func withNameValues<R>(
        _ fields: [(name: String, value: String)],
        _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R
    ) -> R {
        var bytes: [UInt8] = []
        var lengths: [(name: Int, value: Int)] = []
        for field in fields {
            bytes += field.name.utf8
            bytes += field.value.utf8
            lengths.append((field.name.utf8.count, field.value.utf8.count))
        }
        return bytes.withUnsafeMutableBufferPointer { storage in
            var cursor = storage.baseAddress!
            let nameValues = lengths.map { length in
                let name = cursor
                let value = cursor + length.name
                cursor = value + length.value
                return nghttp2_nv(
                    name: name,
                    value: value,
                    namelen: length.name,
                    valuelen: length.value,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                )
            }
            return nameValues.withUnsafeBufferPointer(body)
        }
    }

    /// The bytes the session wants sent now (SETTINGS, ACKs, GOAWAY, responses).
    func takeOutput() throws(ProtocolError) -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 { throw ProtocolError(code: Int(length)) }
            guard length > 0, let data else { return output }
            output += UnsafeBufferPointer(start: data, count: length)
        }
    }
}
