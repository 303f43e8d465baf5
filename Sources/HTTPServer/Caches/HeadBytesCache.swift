import Glibc

/// A connection's last complete request head — from the request line to the empty line that ends it — as bytes,
/// with everything parsing it produced: a keep-alive client (a service calling the same endpoint, a load
/// generator) sends the very same head again and again, and a head with the same bytes, parsed under the same
/// limits, parses to the same request, the same framing and the same checks passed.
///
/// A byte-for-byte equal head is taken (one `memcmp`), and only under equal limits (a reload that changes them
/// parses the next head afresh). So is a head whose lines are the remembered head's but for the values of fields
/// that do not frame the request (an `Idempotency-Key`, a `traceparent`, a request id: what a client sends anew on
/// every request): each such line must have the remembered line's name, byte for byte, and a valid value, which
/// replaces the remembered one in the fields; the request line, `Host`, `Connection`, `Expect`, `Content-Length`
/// and `Transfer-Encoding` must be the same bytes, so the framing decided for the remembered head holds. Anything
/// else goes through the parser and its line-by-line checks (with their errors), and becomes the remembered head
/// if it parses. Heads longer than ``maxBytes`` are not kept.
///
/// Key: the head's exact bytes (but for the values of the fields that do not frame it) and the limits it was
/// parsed under. Bound: one head of at most ``maxBytes``. Invalidated by: the next head that differs otherwise (it
/// replaces this one once it parses).
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

    /// A head taken from the cache: what the remembered head parsed to, its fields with this head's values, and
    /// this head's length.
    struct Match {
        let parsed: Parsed
        let headers: HTTPHeaders
        let length: Int
    }

    private var bytes: [UInt8] = []
    private var limits: HTTPLimits?
    private var parsed: Parsed?
    /// Per line of the remembered head (request line, fields, the empty line): the offset in ``bytes`` just past
    /// its CRLF, and for a field whose value may differ the length of its name, else nil.
    private var lines: [(end: Int, nameLength: Int?)] = []

    /// The head at the start of `buffer` when it is the remembered head, but for the values of the fields that do
    /// not frame it, and `limits` are the ones that head was parsed under.
    func match(_ buffer: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> Match? {
        guard let parsed, let base = buffer.baseAddress, !bytes.isEmpty, self.limits == limits else { return nil }
        if buffer.count >= bytes.count, bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, $0.count) == 0 })
        {
            return Match(parsed: parsed, headers: parsed.headers, length: bytes.count)
        }
        // Not even the request line yet (an empty buffer, between two requests): nothing to compare.
        guard let requestLine = lines.first, buffer.count >= requestLine.end else { return nil }
        return matchVaryingValues(buffer, parsed, maxHeadSize: limits.maxHeadSize)
    }

    /// The head at the start of `buffer` when its lines are the remembered head's but for the values of fields that
    /// do not frame it, each valid (see the type's comment).
    private func matchVaryingValues(
        _ buffer: UnsafeBufferPointer<UInt8>,
        _ remembered: Parsed,
        maxHeadSize: Int
    )
        -> Match?
    {
        guard let base = buffer.baseAddress else { return nil }
        // The head must fit its limit; the parser says what happens to one that does not.
        let end = min(buffer.count, maxHeadSize)
        var headers = remembered.headers
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
                guard let nameLength = line.nameLength, cursor + nameLength + 1 <= end,
                    memcmp(knownBase + lineStart, base + cursor, nameLength + 1) == 0
                else { return false }
                let valueStart = cursor + nameLength + 1
                guard let hit = memchr(base + valueStart, Int32(ASCII.lf), end - valueStart) else { return false }
                let lf = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                guard lf > valueStart, base[lf - 1] == ASCII.cr,
                    let value = Self.fieldValue(UnsafeBufferPointer(rebasing: buffer[valueStart..<lf - 1]))
                else { return false }
                // Field lines follow the request line, in the fields' order.
                headers.replaceValue(at: index - 1, with: value)
                cursor = lf + 1
            }
            return true
        }
        return matched ? Match(parsed: remembered, headers: headers, length: cursor) : nil
    }

    /// A field's value from the bytes after its colon, as the parser reads them (optional whitespace trimmed), or
    /// nil when a byte is not allowed in a value (the parser then rejects the head).
    private static func fieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var first = 0
        var end = bytes.count
        while first < end, bytes[first] == ASCII.space || bytes[first] == ASCII.tab { first += 1 }
        while end > first, bytes[end - 1] == ASCII.space || bytes[end - 1] == ASCII.tab { end -= 1 }
        var isASCII = true
        for byte in bytes[first..<end] {
            guard ASCII.isFieldValueCharacter(byte) else { return nil }
            isASCII = isASCII && byte < 0x80
        }
        let value = UnsafeBufferPointer(rebasing: bytes[first..<end])
        return isASCII ? String(decoding: value, as: UTF8.self) : ASCII.decodeFieldBytes(value)
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
        var lineStart = 0
        for (index, byte) in bytes.enumerated() where byte == ASCII.lf {
            // The first line is the request line; the last, the empty line.
            var nameLength: Int?
            if lineStart > 0, index - lineStart > 1, let colon = bytes[lineStart..<index].firstIndex(of: ASCII.colon) {
                let name = bytes[lineStart..<colon]
                nameLength =
                    Self.framingNames.contains {
                        $0.elementsEqual(name) { ASCII.lowercased($0) == ASCII.lowercased($1) }
                    }
                    ? nil : colon - lineStart
            }
            lines.append((index + 1, nameLength))
            lineStart = index + 1
        }
        // One field per line between the request line and the empty line (not so after empty lines ahead of the
        // request line, which the parser skips), or no value is taken from another head: only the same bytes.
        if lines.count != parsed.headers.count + 2 { lines.removeAll(keepingCapacity: true) }
    }

    /// The fields whose values decide the request's framing and connection handling (``FramingFields``).
    private static let framingNames = ["Host", "Connection", "Expect", "Content-Length", "Transfer-Encoding"].map {
        Array($0.utf8)
    }

    mutating func forget() {
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        limits = nil
        parsed = nil
    }
}
