import CNGHTTP2
import Dispatch
import Glibc

/// One libnghttp2 server session, driven in memory: the connection feeds it the socket's bytes (`receive`) and
/// writes what it produces (`takeOutput`); it never reads or writes a socket itself, so it never blocks an event
/// loop. Not thread-safe: one event loop owns it.
///
/// libnghttp2 does the framing, HPACK, flow control, stream states and the HTTP messaging rules (pseudo-header
/// fields, connection-specific fields, `content-length` against the DATA received: a violation resets the stream
/// with `PROTOCOL_ERROR`). This type adds the server's limits: header list size and count (431), body size (413),
/// stalled bodies (408), and the flood budgets (GOAWAY `ENHANCE_YOUR_CALM`).
final class HTTP2Session {
    /// What `receive` found, in order.
    enum Event {
        /// A request stream whose header fields and body have all arrived: `head` has the pseudo-header fields
        /// (`:method`, `:path`, …) and the others in arrival order; `trailers` from a HEADERS frame after the body, kept apart (as the
        /// HTTP/1.1 parser keeps a chunked body's trailer section), never merged into `headers`.
        case request(
            streamID: Int32,
            head: HTTP2RequestHead,
            body: [UInt8],
            trailers: [(name: String, value: String)]
        )
        /// A stream past a limit: answer it with the error now; the rest of it is discarded.
        case reject(streamID: Int32, RequestParser.Rejection)
    }

    /// Why the session must end: the connection sends what `takeOutput` returns, then closes.
    struct ProtocolError: Error, Equatable { var code: Int }

    /// A request stream still being received. A class: its header list and body grow in place (a struct taken out
    /// of the dictionary, changed and put back copied the whole body for every DATA frame).
    private final class IncomingStream {
        /// Made when the first field is taken one by one (a block taken whole takes its head from the session's recent block).
        lazy var head = HTTP2RequestHead()
        var trailers: [(name: String, value: String)] = []
        /// Fields received, trailers included.
        var fieldCount = 0
        var headerListSize = 0
        /// The value of the first `content-length` field, when it is a number.
        var declaredLength: Int?
        var sawContentLength = false
        var body: [UInt8] = []
        /// Past a limit: the error event is emitted (once) and everything else the stream sends is dropped.
        var rejection: RequestParser.Rejection? {
            didSet { isRejected = rejection != nil }
        }
        /// `rejection != nil`, kept as a flag: testing the optional copies the rejection's strings, per field.
        private(set) var isRejected = false
        var rejectionSent = false
        var lastActivity: UInt64
        /// The buffers of the fields taken one by one, held, for the session to remember the block by.
        var fields: [HeaderFieldBuffers] = []
        /// Whether the request's header block has ended (a later HEADERS frame carries trailers).
        var headComplete = false

        init(lastActivity: UInt64) {
            self.lastActivity = lastActivity
        }

        deinit {
            for field in fields { field.release() }
        }
    }

    private(set) var session: OpaquePointer?
    /// The session's memory; outlives it (see `deinit`).
    private let allocator: HTTP2Allocator
    let limits: HTTPLimits
    private var incoming = StreamTable<IncomingStream>()
    /// The stream whose header block is being received: libnghttp2 delivers a block's fields one after the other,
    /// so each field finds its stream here rather than by hashing its id.
    private var receivingHeaders: (streamID: Int32, stream: IncomingStream)?
    /// Streams handed to the handler and not answered yet.
    var answering = StreamTable<Void>()
    /// Response bodies not yet handed to libnghttp2 as DATA frames: the data provider reads from here as the
    /// peer's flow-control window allows.
    private var pendingBodies = StreamTable<ArraySlice<UInt8>>()
    /// Response bodies still being produced (``respondStreamed(streamID:status:fields:now:)``).
    var streamedBodies = StreamTable<StreamedBody>()
    /// The strings of the last request's header values, reused when the next request sends the same.
    private var values = HeadLineCache<String>()
    /// The last request header block taken whole and within the limits; a block of the very same field buffers
    /// takes its head.
    private var recentBlock: HeaderBlockCache? {
        didSet { recentFields = recentBlock?.fields ?? [] }
    }
    /// `recentBlock`'s fields, read per field without retaining the block.
    private var recentFields: [HeaderFieldBuffers] = []
    /// The stream whose request header block is being received while its fields are, one for one, those of the
    /// recent block (0: none): nothing is built for them, `matchedFields` counts them. Header blocks are never
    /// interleaved (RFC 9113 §4.3), so one counter serves.
    private var matchingStreamID: Int32 = 0
    private var matchedFields = 0
    /// The serial of the last head remembered (``HTTP2RequestHead/serial``).
    private var blockSerial: UInt64 = 0
    /// The header block of the response being submitted, reused.
    let responseFields = HTTP2ResponseFields()
    /// The concurrent stream limit and the stream id rules libnghttp2 leaves to the server.
    private var admission: StreamAdmission
    /// Set when a HEADERS frame named a skipped stream id: the read stops there, the session ends with GOAWAY
    /// `PROTOCOL_ERROR`, and nothing more is read (as libnghttp2 ignores everything after its own connection errors).
    private var endedOnSkippedStream = false
    /// Whether the SETTINGS frame sent carries the real stream limit yet (``StreamAdmission/advertise(_:inFirstFrameOf:at:)``).
    private var advertisedStreamLimit = false
    private var controlFrames: FloodBudget
    private var resets: FloodBudget
    /// When the bytes being received arrived (uptime nanoseconds).
    private var receivedAt: UInt64 = 0
    /// Events since the last `receive`.
    private(set) var events: [Event] = []
    /// Requests handed over since the session began.
    private(set) var requestCount = 0
    /// Set when a flood ended the session (GOAWAY `ENHANCE_YOUR_CALM` queued).
    private(set) var floodDetected: String?

    /// A server session that has queued its SETTINGS frame (sent with the first `takeOutput`).
    ///
    /// `cachesMemory` false: libnghttp2's blocks are freed, never kept for reuse (the fuzz target, for
    /// AddressSanitizer).
    init(limits: HTTPLimits, cachesMemory: Bool = true) {
        self.limits = limits
        allocator = HTTP2Allocator(cachedPerClass: cachesMemory ? HTTP2Allocator.cachedPerClass : 0)
        admission = StreamAdmission(maxConcurrentStreams: limits.http2.maxConcurrentStreams)
        controlFrames = FloodBudget(burst: limits.http2.controlFrameBurst, rate: limits.http2.controlFrameRate)
        resets = FloodBudget(burst: limits.http2.resetBurst, rate: limits.http2.resetRate)
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0, "nghttp2: out of memory")
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var options: OpaquePointer?
        precondition(nghttp2_option_new(&options) == 0, "nghttp2: out of memory")
        defer { nghttp2_option_del(options) }
        // A header block of the largest allowed head fits in a HEADERS frame and a few CONTINUATIONs; an endless
        // run of them (CVE-2024-28182) ends the session.
        nghttp2_option_set_max_continuations(options, 16)
        var memory = allocator.nghttp2Memory
        precondition(
            nghttp2_session_server_new3(
                &session,
                callbacks,
                Unmanaged.passUnretained(self).toOpaque(),
                options,
                &memory
            ) == 0,
            "nghttp2: out of memory"
        )
        let window = UInt32(clamping: min(max(limits.http2.initialWindowSize, 0), Int(Int32.max)))
        var settings = [
            // libnghttp2 gets no limit; the frame it serializes is given the real one (StreamAdmission).
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: StreamAdmission.libnghttp2Limit
            ),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: window),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: max(limits.maxHeadSize, 0))
            ),
        ]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // The connection's window (SETTINGS only sets the streams').
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(window))
    }

    /// A session for a connection upgraded from HTTP/1.1 (`Upgrade: h2c`), whose request becomes stream 1,
    /// half-closed; nil when `settingsPayload` (the decoded `HTTP2-Settings` field) is not a valid SETTINGS payload.
    convenience init?(upgradingWith settingsPayload: [UInt8], headRequest: Bool, limits: HTTPLimits) {
        self.init(limits: limits)
        let result = settingsPayload.withUnsafeBufferPointer { payload in
            nghttp2_session_upgrade2(session, payload.baseAddress, payload.count, headRequest ? 1 : 0, nil)
        }
        guard result == 0 else { return nil }
        _ = admission.open(1)
        answering.insert(1)
        requestCount += 1
    }

    deinit {
        // The buffers held past their callbacks go back to the allocator, then the session; the allocator, a stored
        // property, goes last.
        recentBlock = nil
        receivingHeaders = nil
        incoming = StreamTable()
        nghttp2_session_del(session)
    }

    static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Session? {
        user.map { Unmanaged<HTTP2Session>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: - Receiving

    /// Feeds bytes received from the socket at `now` (uptime nanoseconds: the streams' last activity); afterwards
    /// `events` holds what they completed.
    ///
    /// - Throws: ``ProtocolError`` when the session cannot go on; a GOAWAY may be queued for `takeOutput`.
    func receive(
        _ bytes: UnsafeRawBufferPointer,
        now: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) throws(ProtocolError) {
        events.removeAll(keepingCapacity: true)
        receivedAt = now
        guard !endedOnSkippedStream, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let result = nghttp2_session_mem_recv(session, base, bytes.count)
        if result < 0 && endedOnSkippedStream {
            // A connection error like libnghttp2's own: the streams completed before the frame are handed over
            // (however the bytes were split), the GOAWAY goes out, the session reads no more.
            _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_PROTOCOL_ERROR.rawValue))
            return
        }
        if result < 0 {
            // Queue the GOAWAY the error calls for, if libnghttp2 has not (it does for most protocol errors): a flood
            // libnghttp2 caught itself (acknowledgements the client does not read, an endless run of CONTINUATION
            // frames) gets ENHANCE_YOUR_CALM, like the ones this type counts.
            let code = Int32(result)
            if code == NGHTTP2_ERR_FLOODED.rawValue || code == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue {
                terminate(
                    flood: code == NGHTTP2_ERR_FLOODED.rawValue ? "unread acknowledgements" : "CONTINUATION frames"
                )
            } else {
                _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_PROTOCOL_ERROR.rawValue))
            }
            throw ProtocolError(code: Int(result))
        }
    }

    private static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { _, header, user in
            guard let header, header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue),
                let session = HTTP2Session.from(user)
            else { return 0 }
            return session.headersFrameBegins(streamID: header.pointee.stream_id)
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let session = HTTP2Session.from(user) else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            if frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                guard session.admission.open(streamID) else {
                    session.refuse(streamID)
                    return 0
                }
                let stream = IncomingStream(lastActivity: session.receivedAt)
                session.incoming[streamID] = stream
                session.receivingHeaders = (streamID, stream)
                session.matchingStreamID = streamID
                session.matchedFields = 0
            } else {
                session.receivingHeaders = session.incoming[streamID].map { (streamID, $0) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback2(callbacks) { _, frame, name, value, _, user in
            guard let frame, let name, let value, let session = HTTP2Session.from(user) else { return 0 }
            session.header(
                streamID: frame.pointee.hd.stream_id,
                isTrailer: frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS,
                HeaderFieldBuffers(name: name, value: value)
            )
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data, let session = HTTP2Session.from(user) else { return 0 }
            session.data(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let session = HTTP2Session.from(user) else { return 0 }
            session.frameReceived(frame.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, user in
            guard let session = HTTP2Session.from(user) else { return 0 }
            if session.receivingHeaders?.streamID == streamID { session.receivingHeaders = nil }
            if session.matchingStreamID == streamID { session.matchingStreamID = 0 }
            session.incoming[streamID] = nil
            session.pendingBodies[streamID] = nil
            session.endStreamedBody(streamID, HTTPServerError.connectionClosed)
            session.answering.remove(streamID)
            session.admission.closed(streamID)
            return 0
        }
    }

    /// A HEADERS frame's header: one naming a stream id the client skipped ends the session (RFC 9113 §5.1.1):
    /// `receive` queues GOAWAY `PROTOCOL_ERROR` and reads no more.
    private func headersFrameBegins(streamID: Int32) -> Int32 {
        let verdict = admission.headersFrame(streamID: streamID) {
            nghttp2_session_find_stream(session, streamID) != nil
        }
        guard verdict == .protocolError else { return 0 }
        // Stops libnghttp2 at this frame; `receive` ends the session.
        endedOnSkippedStream = true
        return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
    }

    /// Refuses a request stream past the concurrent stream limit (RFC 9113 §5.1.2): `RST_STREAM` `REFUSED_STREAM`,
    /// its fields ignored (libnghttp2 still decodes them, which keeps HPACK in step). A client that keeps opening
    /// streams past the limit spends the control-frame budget.
    private func refuse(_ streamID: Int32) {
        receivingHeaders = nil
        matchingStreamID = 0
        _ = nghttp2_submit_rst_stream(
            session,
            UInt8(NGHTTP2_FLAG_NONE.rawValue),
            streamID,
            NGHTTP2_REFUSED_STREAM.rawValue
        )
        spendControlFrame("streams past the concurrent stream limit")
    }

    private func header(streamID: Int32, isTrailer: Bool, _ field: HeaderFieldBuffers) {
        if streamID == matchingStreamID && !isTrailer && matchedFields < recentFields.count
            && recentFields[matchedFields].hasSameBytes(as: field)
        {
            matchedFields += 1
            return
        }
        let stream: IncomingStream
        if let receiving = receivingHeaders, receiving.streamID == streamID {
            stream = receiving.stream
        } else if let found = incoming[streamID] {
            stream = found
        } else {
            return
        }
        guard !stream.isRejected else { return }
        if isTrailer {
            accept(name: field.nameBytes, value: field.valueBytes, isTrailer: true, into: stream)
            return
        }
        if streamID == matchingStreamID {
            departFromRecentBlock(stream)
            guard !stream.isRejected else { return }
        }
        field.retain()
        stream.fields.append(field)
        accept(name: field.nameBytes, value: field.valueBytes, isTrailer: false, into: stream)
    }

    /// Takes the fields that matched the recent block so far one by one, as if they had not matched; the block's
    /// next fields are taken one by one too.
    private func departFromRecentBlock(_ stream: IncomingStream) {
        let matched = matchedFields
        matchingStreamID = 0
        for field in recentFields[..<matched] where !stream.isRejected {
            field.retain()
            stream.fields.append(field)
            accept(name: field.nameBytes, value: field.valueBytes, isTrailer: false, into: stream)
        }
    }

    /// The end of a stream's request header block: a block of the recent block's very fields takes its head;
    /// another one, received within the limits, becomes the recent block.
    private func headerBlockEnded(_ stream: IncomingStream, streamID: Int32) {
        stream.headComplete = true
        guard !stream.isRejected else {
            if streamID == matchingStreamID { matchingStreamID = 0 }
            return
        }
        if streamID == matchingStreamID {
            if let recent = recentBlock, matchedFields > 0, matchedFields == recentFields.count {
                matchingStreamID = 0
                stream.head = recent.head
                stream.fieldCount = recent.fields.count
                stream.headerListSize = recent.headerListSize
                stream.declaredLength = recent.declaredLength
                stream.sawContentLength = recent.sawContentLength
                return
            }
            departFromRecentBlock(stream)
            guard !stream.isRejected else { return }
        }
        stream.head.finish()
        blockSerial += 1
        stream.head.serial = blockSerial
        recentBlock = HeaderBlockCache(
            fields: stream.fields,
            head: stream.head,
            headerListSize: stream.headerListSize,
            declaredLength: stream.declaredLength,
            sawContentLength: stream.sawContentLength
        )
        stream.fields = []
    }

    /// Takes one field of a header block: counted against the limits, then a pseudo-header field into the head,
    /// another into its headers (or the trailers).
    private func accept(
        name: UnsafeBufferPointer<UInt8>,
        value: UnsafeBufferPointer<UInt8>,
        isTrailer: Bool,
        into stream: IncomingStream
    ) {
        // RFC 9113 §6.5.2: a field's size is its name's and value's lengths plus 32.
        stream.headerListSize += name.count + value.count + 32
        if stream.headerListSize > limits.maxHeadSize {
            stream.rejection = .headersTooLarge("request header list larger than \(limits.maxHeadSize) bytes")
            stream.head = HTTP2RequestHead()
        } else if stream.fieldCount >= limits.maxHeaderCount {
            stream.rejection = .headersTooLarge("more than \(limits.maxHeaderCount) header fields")
            stream.head = HTTP2RequestHead()
        } else {
            let value =
                isTrailer ? String(decoding: value, as: UTF8.self) : values.string(for: value, at: stream.fieldCount)
            stream.fieldCount += 1
            if !isTrailer, let pseudo = Self.pseudoField(name) {
                stream.head.set(pseudo, value)
                return
            }
            let name = Self.fieldName(name)
            if isTrailer {
                stream.trailers.append((name, value))
            } else {
                // libnghttp2 passes field names in lower case (it refuses others, RFC 9113 §8.2.1).
                if !stream.sawContentLength && name.utf8.count == 14 && name == "content-length" {
                    stream.sawContentLength = true
                    stream.declaredLength = Int(value)
                }
                stream.head.add(name: name, value: value)
            }
        }
    }

    /// The pseudo-header field a received name is, by its bytes; nil for another field.
    private static func pseudoField(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTP2RequestHead.PseudoField? {
        guard let base = bytes.baseAddress, bytes.count > 1, base[0] == UInt8(ascii: ":") else { return nil }
        func isName(_ known: StaticString) -> Bool { memcmp(base, known.utf8Start, known.utf8CodeUnitCount) == 0 }
        switch bytes.count {
        case 5 where isName(":path"): return .path
        case 7 where isName(":method"): return .method
        case 7 where isName(":scheme"): return .scheme
        case 10 where isName(":authority"): return .authority
        default: return .other
        }
    }

    /// A received field name as a string: the names most requests carry are string literals (no string built or
    /// validated; one comparison of bytes), any other is decoded.
    private static func fieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let base = bytes.baseAddress else { return "" }
        /// Whether the received name is `known` (the length is already known to match).
        func isName(_ known: StaticString) -> Bool { memcmp(base, known.utf8Start, known.utf8CodeUnitCount) == 0 }
        switch bytes.count {
        case 2: if isName("te") { return "te" }
        case 4: if isName("host") { return "host" }
        case 6: if isName("accept") { return "accept" }
        case 10: if isName("user-agent") { return "user-agent" }
        case 12: if isName("content-type") { return "content-type" }
        case 13: if isName("authorization") { return "authorization" }
        case 14: if isName("content-length") { return "content-length" }
        case 15: if isName("accept-encoding") { return "accept-encoding" }
        default: break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func data(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = incoming[streamID] else { return }
        stream.lastActivity = receivedAt
        if !stream.isRejected {
            if stream.body.count + bytes.count > limits.maxBodySize {
                stream.rejection = .payloadTooLarge(limit: limits.maxBodySize)
                stream.body = []
            } else {
                stream.body += bytes
            }
        }
        emitRejection(streamID)
    }

    private func frameReceived(_ frame: nghttp2_frame) {
        let header = frame.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue:
            if receivingHeaders?.streamID == header.stream_id { receivingHeaders = nil }
            if let stream = incoming[header.stream_id] {
                if !stream.headComplete { headerBlockEnded(stream, streamID: header.stream_id) }
                if !stream.isRejected, let length = stream.declaredLength, length > limits.maxBodySize {
                    // Refused from the announced length, before any of the body.
                    stream.rejection = .payloadTooLarge(limit: limits.maxBodySize)
                }
            }
            emitRejection(header.stream_id)
            if endStream { complete(header.stream_id) }
        case NGHTTP2_DATA.rawValue:
            if endStream {
                complete(header.stream_id)
            } else if header.length == 0 {
                spendControlFrame("empty DATA frames")
            }
        case NGHTTP2_PING.rawValue, NGHTTP2_SETTINGS.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { spendControlFrame("PING or SETTINGS frames") }
        case NGHTTP2_WINDOW_UPDATE.rawValue, NGHTTP2_PRIORITY.rawValue:
            spendControlFrame("WINDOW_UPDATE or PRIORITY frames")
        case NGHTTP2_RST_STREAM.rawValue:
            spendControlFrame("RST_STREAM frames")
            if incoming[header.stream_id] != nil || answering.contains(header.stream_id), !resets.spend() {
                terminate(flood: "streams reset before their response (rapid reset)")
            }
        default:
            break
        }
    }

    private func emitRejection(_ streamID: Int32) {
        guard let stream = incoming[streamID], let rejection = stream.rejection, !stream.rejectionSent else { return }
        stream.rejectionSent = true
        events.append(.reject(streamID: streamID, rejection))
    }

    private func complete(_ streamID: Int32) {
        guard let stream = incoming.removeValue(forKey: streamID) else { return }
        if !stream.headComplete { headerBlockEnded(stream, streamID: streamID) }
        guard !stream.isRejected else { return }
        answering.insert(streamID)
        requestCount += 1
        // Work asked for earns room for the control frames that go with it (window updates, a PING).
        controlFrames.credit(8)
        events.append(
            .request(streamID: streamID, head: stream.head, body: stream.body, trailers: stream.trailers)
        )
    }

    private func spendControlFrame(_ kind: String) {
        if !controlFrames.spend() { terminate(flood: kind) }
    }

    private func terminate(flood: String) {
        guard floodDetected == nil else { return }
        floodDetected = flood
        _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue))
    }

    /// Moves `events` out into `taken` (which must be empty) and keeps `taken`'s storage for the next events.
    func takeEvents(swappingWith taken: inout [Event]) {
        swap(&events, &taken)
    }

    // MARK: - State

    /// Whether `streamID` is still open, so that a response to it can be sent (the client may have reset it).
    func isOpen(_ streamID: Int32) -> Bool {
        nghttp2_session_find_stream(session, streamID) != nil
    }

    /// Streams whose request is still arriving or being answered, or whose response is still being sent.
    var hasActiveStreams: Bool {
        !incoming.isEmpty || !answering.isEmpty || !pendingBodies.isEmpty || !streamedBodies.isEmpty
    }

    /// False once the session has nothing more to read or write (after a GOAWAY both ways, or a fatal error).
    var wantsToContinue: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// When the request stream that has waited longest for its next bytes last received some (uptime
    /// nanoseconds); nil when no request is arriving.
    var oldestIncomingActivity: UInt64? {
        var oldest: UInt64?
        for (_, stream) in incoming where !stream.isRejected {
            oldest = min(oldest ?? stream.lastActivity, stream.lastActivity)
        }
        return oldest
    }

    /// Streams still receiving their request whose last DATA (or HEADERS) arrived before `deadline`; each is
    /// marked rejected, so it is reported once.
    func stalledStreams(before deadline: UInt64) -> [Int32] {
        var stalled: [Int32] = []
        for (streamID, stream) in incoming where !stream.isRejected && stream.lastActivity < deadline {
            stalled.append(streamID)
        }
        for streamID in stalled {
            incoming[streamID]?.rejection = RequestParser.Rejection(
                status: .requestTimeout,
                code: "REQUEST_TIMEOUT",
                message: "request not received in time"
            )
            incoming[streamID]?.rejectionSent = true
            incoming[streamID]?.body = []
        }
        return stalled
    }

    // MARK: - Sending

    /// Queues a response on `streamID`: a HEADERS frame (`:status` first, then `headers`), then `body` as DATA
    /// frames under flow control, the last with END_STREAM (no DATA for an empty body). Names are sent in lower
    /// case; a field that is not a valid name and value is dropped. Returns false when the stream is gone (reset by the client): the response is dropped.
    @discardableResult
    func respond(
        streamID: Int32,
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8]
    ) throws(ProtocolError) -> Bool {
        try respond(streamID: streamID, status: status, body: body) { fields in
            for (name, value) in headers { fields.append(checkedName: name, value: value) }
        }
    }

    /// Queues a response whose header fields `addFields` appends after `:status` (into a block the session reuses
    /// for every response: no strings or arrays built per response). Otherwise as
    /// ``respond(streamID:status:headers:body:)``.
    @discardableResult
    func respond(
        streamID: Int32,
        status: Int,
        body: [UInt8],
        fields addFields: (HTTP2ResponseFields) -> Void
    ) throws(ProtocolError) -> Bool {
        answering.remove(streamID)
        guard isOpen(streamID) else { return false }
        responseFields.reset(status: status)
        addFields(responseFields)
        let result: Int32
        if body.isEmpty {
            result = responseFields.withNameValues { nameValues in
                nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, nil)
            }
        } else {
            pendingBodies[streamID] = body[...]
            var provider = nghttp2_data_provider()
            provider.read_callback = { _, streamID, buffer, capacity, flags, _, user in
                guard let buffer, let flags, let session = HTTP2Session.from(user) else {
                    return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
                }
                return session.readBody(streamID: streamID, into: buffer, capacity: capacity, flags: flags)
            }
            result = responseFields.withNameValues { nameValues in
                nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, &provider)
            }
        }
        if result != 0 {
            pendingBodies[streamID] = nil
            throw ProtocolError(code: Int(result))
        }
        return true
    }

    func readBody(
        streamID: Int32,
        into buffer: UnsafeMutablePointer<UInt8>,
        capacity: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        if let streamed = streamedBodies[streamID] {
            return readStreamed(streamed, streamID: streamID, into: buffer, capacity: capacity, flags: flags)
        }
        let remaining = pendingBodies[streamID] ?? []
        let count = min(capacity, remaining.count)
        remaining.prefix(count).withUnsafeBytes { source in
            guard let base = source.baseAddress else { return }
            buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
        }
        if count == remaining.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            pendingBodies[streamID] = nil
        } else {
            pendingBodies[streamID] = remaining.dropFirst(count)
        }
        return count
    }

    /// Resets a stream (`RST_STREAM` with `code`, an `nghttp2_error_code`).
    func reset(streamID: Int32, code: UInt32) {
        answering.remove(streamID)
        endStreamedBody(streamID, HTTPServerError.connectionClosed)
        admission.didReset(streamID)
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code)
    }

    /// Queues a graceful GOAWAY (`NO_ERROR`, the last stream the session has seen): no new stream is accepted, the
    /// ones in progress finish.
    func goAway() {
        let lastStreamID = nghttp2_session_get_last_proc_stream_id(session)
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, 0, nil, 0)
    }

    /// The bytes the session wants sent now (SETTINGS, ACKs, GOAWAY, responses), frame by frame until about
    /// `limit` bytes: what is left waits in the session (and its streams' bodies) until the connection asks again,
    /// so a client that does not read cannot grow the output past the connection's bound.
    func takeOutput(limit: Int = .max) throws(ProtocolError) -> [UInt8] {
        var output: [UInt8] = []
        try takeOutput(into: &output, upTo: limit)
        return output
    }

    /// Appends the bytes the session wants sent now to `output`, frame by frame while `output` is shorter than
    /// `limit` (no intermediate array: the connection's own output buffer is passed).
    func takeOutput(into output: inout [UInt8], upTo limit: Int) throws(ProtocolError) {
        while output.count < limit {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 { throw ProtocolError(code: Int(length)) }
            guard length > 0, let data else { break }
            let start = output.count
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            if !advertisedStreamLimit {
                // The session's SETTINGS is its first frame (libnghttp2 sends one frame per call).
                advertisedStreamLimit = StreamAdmission.advertise(
                    admission.maxConcurrentStreams,
                    inFirstFrameOf: &output,
                    at: start
                )
            }
        }
    }
}
