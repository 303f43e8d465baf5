import Glibc

/// A connection's last complete request head — from the request line to the empty line that ends it — as bytes,
/// with everything parsing it produced: a keep-alive client (a service calling the same endpoint, a load
/// generator) sends the very same head again and again, and a head with the same bytes, parsed under the same
/// limits, parses to the same request, the same framing and the same checks passed.
///
/// A byte-for-byte equal head is taken (one `memcmp`), and only under equal limits (a reload that changes them
/// parses the next head afresh). So is a head whose lines are the remembered head's but for the values of fields
/// that do not frame the request (an `Idempotency-Key`, a `traceparent`, a request id: what a client sends anew on
/// every request) and of `Content-Length` (a body of another length): each such line must have the remembered
/// line's name, byte for byte, and a valid value, which replaces the remembered one in the fields; a new length
/// must be 1 to 18 digits within the body limit, and is taken only when it is the head's one `Content-Length`, for
/// a body of fixed length or none, without `Expect`. The request line, `Host`, `Connection`, `Expect` and
/// `Transfer-Encoding` must be the same bytes, so the rest of what the remembered head decided holds. Anything else
/// goes through the parser and its line-by-line checks (with their errors), and becomes the remembered head if it
/// parses. Heads longer than ``maxBytes`` are not kept.
///
/// Key: the head's exact bytes (but for the values of the fields that do not frame it, and its length) and the
/// limits it was parsed under. Bound: one head of at most ``maxBytes``. Invalidated by: the next head that differs
/// otherwise (it replaces this one once it parses).
struct HeadBytesCache {
    /// The longest head kept.
    static let maxBytes = 4096

    /// How the head frames what follows it.
    enum Framing {
        /// No body: the request is complete.
        case none
        /// A body of this many bytes (`Content-Length`, already checked against the body limit).
        case fixed(length: Int, expectsContinue: Bool)
        /// A chunked body.
        case chunked(expectsContinue: Bool)

        /// Whether the client waits for `100 Continue` before sending the body.
        var expectsContinue: Bool {
            switch self {
            case .none: false
            case .fixed(_, let expects), .chunked(let expects): expects
            }
        }
    }

    /// What the parser sets from a head: a class, so that taking it copies one reference, not ten fields.
    final class Parsed {
        let method: String
        let version: HTTPVersion
        let target: String
        let absoluteAuthority: Substring?
        let rawPath: String
        let path: String
        let query: [(name: String, value: String)]
        let headers: HTTPHeaders
        let keepAlive: Bool
        let framing: Framing

        init(
            method: String,
            version: HTTPVersion,
            target: String,
            absoluteAuthority: Substring?,
            rawPath: String,
            path: String,
            query: [(name: String, value: String)],
            headers: HTTPHeaders,
            keepAlive: Bool,
            framing: Framing
        ) {
            self.method = method
            self.version = version
            self.target = target
            self.absoluteAuthority = absoluteAuthority
            self.rawPath = rawPath
            self.path = path
            self.query = query
            self.headers = headers
            self.keepAlive = keepAlive
            self.framing = framing
        }
    }

    /// A head taken from the cache: what the remembered head parsed to, its fields with this head's values, its
    /// framing (another `Content-Length` gives another length), and this head's length.
    struct Match {
        let parsed: Parsed
        let headers: HTTPHeaders
        let framing: Framing
        let length: Int
    }

    /// What may differ in a line of the remembered head.
    enum LineKind {
        /// Nothing: the request line, the empty line, a field that frames the request.
        case same
        /// The value of a field that does not frame the request; the name is this many bytes.
        case value(nameLength: Int)
        /// The value of the head's only `Content-Length` field (the remembered head has a fixed-length body or
        /// none); the name is this many bytes.
        case contentLength(nameLength: Int)
    }

    private var bytes: [UInt8] = []
    private var limits: HTTPLimits?
    private var parsed: Parsed?
    /// Per line of the remembered head (request line, fields, the empty line): the offset in ``bytes`` just past
    /// its CRLF, and what may differ in it.
    private var lines: [(end: Int, kind: LineKind)] = []

    /// The head at the start of `buffer` when it is the remembered head, but for the values of the fields that do
    /// not frame it and of `Content-Length`, and `limits` are the ones that head was parsed under.
    func match(_ buffer: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> Match? {
        // Not even the request line yet (an empty buffer, between two requests): nothing to compare.
        guard let parsed, let base = buffer.baseAddress, let requestLine = lines.first, buffer.count >= requestLine.end
        else { return nil }
        if buffer.count >= bytes.count, bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, $0.count) == 0 })
        {
            guard self.limits == limits else { return nil }
            return Match(parsed: parsed, headers: parsed.headers, framing: parsed.framing, length: bytes.count)
        }
        guard lines.count > 2, self.limits == limits else { return nil }
        return matchVaryingValues(buffer, parsed, limits: limits)
    }

    /// The head at the start of `buffer` when its lines are the remembered head's but for the values of fields that
    /// do not frame it, each valid, and of `Content-Length`, a length within the body limit (see the type's
    /// comment).
    private func matchVaryingValues(
        _ buffer: UnsafeBufferPointer<UInt8>,
        _ remembered: Parsed,
        limits: HTTPLimits
    )
        -> Match?
    {
        guard let base = buffer.baseAddress else { return nil }
        // The head must fit its limit; the parser says what happens to one that does not.
        let end = min(buffer.count, limits.maxHeadSize)
        var headers = remembered.headers
        var framing = remembered.framing
        var cursor = 0
        var lineStart = 0
        let matched = bytes.withUnsafeBufferPointer { known -> Bool in
            let knownBase = known.baseAddress!
            for (index, line) in lines.enumerated() {
                defer { lineStart = line.end }
                let length = line.end - lineStart
                if cursor + length <= end && memcmp(knownBase + lineStart, base + cursor, length) == 0 {
                    cursor += length
                    continue
                }
                // Another value: the same name and colon, then a valid value up to a CRLF.
                let nameLength: Int
                switch line.kind {
                case .same: return false
                case .value(let count), .contentLength(let count): nameLength = count
                }
                guard cursor + nameLength + 1 <= end, memcmp(knownBase + lineStart, base + cursor, nameLength + 1) == 0
                else { return false }
                let valueStart = cursor + nameLength + 1
                guard let hit = memchr(base + valueStart, Int32(ASCII.lf), end - valueStart) else { return false }
                let lf = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                guard lf > valueStart, base[lf - 1] == ASCII.cr,
                    let value = ASCII.fieldValue(UnsafeBufferPointer(rebasing: buffer[valueStart..<lf - 1]))
                else { return false }
                if case .contentLength = line.kind {
                    // As the parser reads one Content-Length of a few digits; anything else is parsed afresh.
                    guard let bodyLength = FramingFields.plainLength(value), bodyLength <= limits.maxBodySize else {
                        return false
                    }
                    framing =
                        bodyLength == 0 ? .none : .fixed(length: bodyLength, expectsContinue: framing.expectsContinue)
                }
                // Field lines follow the request line, in the fields' order.
                headers.replaceValue(at: index - 1, with: value)
                cursor = lf + 1
            }
            return true
        }
        return matched ? Match(parsed: remembered, headers: headers, framing: framing, length: cursor) : nil
    }

    /// Remembers a head that parsed (`head` is its bytes, empty line included).
    mutating func remember(_ head: ArraySlice<UInt8>, _ parsed: Parsed, limits: HTTPLimits) {
        guard head.count <= Self.maxBytes else {
            forget()
            return
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: head)
        self.limits = limits
        self.parsed = parsed
        lines.removeAll(keepingCapacity: true)
        var contentLengthLines = 0
        bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress!
            var lineStart = 0
            while lineStart < bytes.count,
                let hit = memchr(base + lineStart, Int32(ASCII.lf), bytes.count - lineStart)
            {
                let lf = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                // The first line is the request line; the last, the empty line.
                var kind = LineKind.same
                if lineStart > 0, lf - lineStart > 1,
                    let colon = memchr(base + lineStart, Int32(ASCII.colon), lf - lineStart)
                {
                    let nameLength = UnsafeRawPointer(colon).assumingMemoryBound(to: UInt8.self) - (base + lineStart)
                    let name = UnsafeBufferPointer(start: base + lineStart, count: nameLength)
                    if Self.equalIgnoringCase(name, Self.contentLengthName) {
                        contentLengthLines += 1
                        kind = .contentLength(nameLength: nameLength)
                    } else if !Self.framingNames.contains(where: { Self.equalIgnoringCase(name, $0) }) {
                        kind = .value(nameLength: nameLength)
                    }
                }
                lines.append((lf + 1, kind))
                lineStart = lf + 1
            }
        }
        // One field per line between the request line and the empty line (not so after empty lines ahead of the
        // request line, which the parser skips), or no value is taken from another head: only the same bytes.
        if lines.count != parsed.headers.count + 2 {
            lines.removeAll(keepingCapacity: true)
            lines.append((bytes.count, .same))
            return
        }
        // A length stands for the body's framing only alone, only for a body of fixed length or none, and only
        // without `Expect` (whose 100-continue a length of 0 drops).
        let lengthFrames: Bool
        switch parsed.framing {
        case .none, .fixed: lengthFrames = contentLengthLines == 1 && !parsed.headers.contains("Expect")
        case .chunked: lengthFrames = false
        }
        if !lengthFrames {
            for index in lines.indices {
                if case .contentLength = lines[index].kind { lines[index].kind = .same }
            }
        }
    }

    /// `Content-Length`, and the other fields whose values decide the request's framing and connection handling.
    private static let contentLengthName = Array("Content-Length".utf8)
    private static let framingNames = FramingFields.names.map { Array($0.utf8) }.filter { $0 != contentLengthName }

    private static func equalIgnoringCase(_ name: UnsafeBufferPointer<UInt8>, _ known: [UInt8]) -> Bool {
        name.count == known.count && zip(name, known).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }

    mutating func forget() {
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        limits = nil
        parsed = nil
    }
}
