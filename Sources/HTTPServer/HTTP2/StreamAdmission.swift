/// Which request streams a session opens, by RFC 9113's rules where libnghttp2 1.52 departs from them.
///
/// - §5.1.2: a HEADERS frame that opens a stream past `SETTINGS_MAX_CONCURRENT_STREAMS` is a *stream* error: that
///   stream alone is refused (`RST_STREAM` `REFUSED_STREAM`); the connection and its open streams go on. libnghttp2
///   makes it a connection error (`GOAWAY PROTOCOL_ERROR`, "max concurrent streams exceeded") once the client has
///   acknowledged the server's SETTINGS, as every real client does. So libnghttp2 is given no limit
///   (``libnghttp2Limit``), the client is told the real one (``advertise(_:inFirstFrameOf:)`` writes it into the
///   SETTINGS frame libnghttp2 serialized), and this type keeps it.
/// - §5.1.1: a HEADERS frame on a stream id lower than one the client already used, for a stream that was never
///   opened, is a connection error `PROTOCOL_ERROR`. libnghttp2 drops such a frame without a word once it has
///   forgotten the stream ids it has seen.
///
/// A HEADERS frame on a stream this server reset (refused, or ended early) is passed on to libnghttp2, which
/// ignores it: the client may have sent it before the reset reached it.
struct StreamAdmission {
    /// What to do with a HEADERS frame, from its frame header.
    enum Verdict: Equatable {
        /// libnghttp2 handles it (a new stream, trailers on an open one, a stream this server reset).
        case passOn
        /// A connection error `PROTOCOL_ERROR`: the frame names a stream id that was skipped.
        case protocolError
    }

    /// The limit libnghttp2 is given in the SETTINGS it queues: none (it would otherwise end the connection).
    static let libnghttp2Limit = UInt32.max

    /// How many reset streams are remembered to tolerate a late HEADERS frame on them.
    static let rememberedResets = 64

    let maxConcurrentStreams: Int
    /// Request streams opened and not closed yet.
    private(set) var openCount = 0
    /// The highest client stream id a HEADERS frame has named.
    private(set) var highestStreamID: Int32 = 0
    private var admitted = StreamTable<Void>()
    /// The last streams this server reset, oldest overwritten first.
    private var recentResets: [Int32] = []
    private var nextReset = 0

    init(maxConcurrentStreams: Int) {
        self.maxConcurrentStreams = max(maxConcurrentStreams, 0)
    }

    /// A HEADERS frame's header arrived on `streamID`; `isKnown` tells whether libnghttp2 still has that stream
    /// (asked only for an id not above the highest).
    mutating func headersFrame(streamID: Int32, isKnown: () -> Bool) -> Verdict {
        // Even ids and 0 are libnghttp2's own connection errors.
        guard streamID & 1 == 1 else { return .passOn }
        if streamID > highestStreamID {
            highestStreamID = streamID
            return .passOn
        }
        if isKnown() || recentResets.contains(streamID) { return .passOn }
        return .protocolError
    }

    /// libnghttp2 opened the request stream `streamID`: whether it is within the limit (`false`: refuse it with
    /// `REFUSED_STREAM`; it is remembered as reset).
    mutating func open(_ streamID: Int32) -> Bool {
        highestStreamID = max(highestStreamID, streamID)
        guard openCount < maxConcurrentStreams else {
            didReset(streamID)
            return false
        }
        openCount += 1
        admitted[streamID] = ()
        return true
    }

    /// A stream closed (answered, reset by either side, or refused).
    mutating func closed(_ streamID: Int32) {
        if admitted.removeValue(forKey: streamID) != nil { openCount -= 1 }
    }

    /// This server reset `streamID`.
    mutating func didReset(_ streamID: Int32) {
        if recentResets.count < Self.rememberedResets {
            recentResets.append(streamID)
        } else {
            recentResets[nextReset] = streamID
            nextReset = (nextReset + 1) % Self.rememberedResets
        }
    }

    /// Writes `limit` as `SETTINGS_MAX_CONCURRENT_STREAMS` into the SETTINGS frame at `start` in `bytes` (the first
    /// frame a server session sends), where libnghttp2 serialized ``libnghttp2Limit``.
    ///
    /// - Returns: Whether the frame at `start` was that SETTINGS frame (then it carries `limit` now).
    static func advertise(_ limit: Int, inFirstFrameOf bytes: inout [UInt8], at start: Int) -> Bool {
        guard bytes.count >= start + 9 else { return false }
        let length = Int(bytes[start]) << 16 | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
        // SETTINGS (type 0x4), not an ACK, whole.
        guard bytes[start + 3] == 0x4, bytes[start + 4] & 0x1 == 0, bytes.count >= start + 9 + length else {
            return false
        }
        let value = UInt32(clamping: max(limit, 0))
        var entry = start + 9
        var found = false
        while entry + 6 <= start + 9 + length {
            // SETTINGS_MAX_CONCURRENT_STREAMS is identifier 0x3.
            if bytes[entry] == 0, bytes[entry + 1] == 0x3 {
                for index in 0..<4 { bytes[entry + 2 + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
                found = true
            }
            entry += 6
        }
        return found
    }
}
