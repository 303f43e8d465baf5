import Glibc

/// An incremental, strict HTTP/1.1 request parser (RFC 9112), with no I/O.
///
/// Bytes are appended with `feed(_:)` in slices of any size; `next()` returns what the connection must do next.
/// The outcome does not depend on how the bytes were split. After a rejection the parser stays failed: nothing more
/// on that connection is processed (RFC 9112 §6.3, framing errors make the rest of the stream unreliable).
///
/// Strictness, on purpose:
/// - Lines end with CRLF; a bare LF is rejected (RFC 9112 §2.2 allows accepting it, but a parser that disagrees
///   with a front proxy about line ends is a request-smuggling vector).
/// - No obs-fold, no whitespace between a field name and its colon, no CTL in values (RFC 9112 §5.1, §5.2).
/// - `Content-Length` with `Transfer-Encoding`, or a `Transfer-Encoding` whose final coding is not `chunked`,
///   is rejected and the connection closed (RFC 9112 §6.1, §6.3).
struct RequestParser {
    /// What the connection must do next.
    enum Action {
        /// Nothing to do until more bytes arrive.
        case needMoreData
        /// Send `HTTP/1.1 100 Continue`, then call `next()` again (RFC 9110 §10.1.1).
        case send100Continue
        /// A complete request; call `next()` again for a pipelined one.
        case requestComplete(HTTPRequest)
        /// Answer with this error, then close the connection.
        case reject(Rejection)
    }

    /// An error answer decided by the parser.
    struct Rejection: Sendable, Equatable, Error {
        var status: HTTPStatus
        var code: String
        var message: String
        /// Whether the connection must be closed after the answer (always, for errors found while parsing).
        var close: Bool = true

        /// The rejection as the handler sees it (``HTTPHandler/response(to:)``).
        var asHTTPRejection: HTTPRejection {
            HTTPRejection(status: status, code: code, message: message)
        }

        static func badRequest(_ message: String) -> Rejection {
            Rejection(status: .badRequest, code: "BAD_REQUEST", message: message)
        }
        static func headersTooLarge(_ message: String) -> Rejection {
            Rejection(status: .requestHeaderFieldsTooLarge, code: "HEADERS_TOO_LARGE", message: message)
        }
        static func uriTooLong(limit: Int) -> Rejection {
            Rejection(status: .uriTooLong, code: "URI_TOO_LONG", message: "request target longer than \(limit) bytes")
        }
        static func payloadTooLarge(limit: Int) -> Rejection {
            Rejection(
                status: .contentTooLarge,
                code: "PAYLOAD_TOO_LARGE",
                message: "request body larger than \(limit) bytes"
            )
        }
    }

    /// Where the parser is in the current request; the connection picks its timer from it.
    enum Phase: Equatable {
        /// No byte of the next request received yet.
        case idle
        /// Receiving a request head (the head deadline applies).
        case head
        /// Receiving a request body (the inactivity timeout applies).
        case body
        /// A request was rejected; nothing more is parsed.
        case failed
    }

    private enum State {
        case head
        case fixedBody(length: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed
    }

    /// What a request line holds once parsed.
    private struct RequestLine {
        var method: String
        var version: HTTPVersion
        var target: String
        var absoluteAuthority: Substring?
    }

    private enum LineResult {
        case line(Range<Int>)
        case incomplete
    }

    /// Limits applied to the next request (a change applies from the next request head).
    var limits: HTTPLimits
    /// Copied into every request.
    var remoteAddress: String?

    private var buffer: [UInt8] = []
    private var start = 0
    private var scanOffset = 0
    private var state = State.head

    // The request under construction.
    private var activeLimits: HTTPLimits
    private var headBytes = 0
    private var requestLineSeen = false
    private var method = ""
    private var target = ""
    /// The authority of an absolute-form target, validated in place of the `Host` field's value.
    private var absoluteAuthority: Substring?
    private var rawPath = ""
    private var path = ""
    private var query: [(name: String, value: String)] = []
    private var version = HTTPVersion.http1_1
    /// The connection's last request line and header lines as parsed, by position (a keep-alive client repeats
    /// them): a line with the same bytes is taken from here without being parsed or validated again. Its limits
    /// still apply: the target's length is checked on the raw line before, the head's size and field count as
    /// for any line.
    private var recentRequestLine = HeadLineCache<RequestLine>()
    private var recentFields = HeadLineCache<(name: String, value: String)>()
    /// The connection's last head whole, taken as parsed then when the next head has the same bytes.
    private var recentHead = HeadBytesCache()
    /// Where the head being parsed starts in `buffer`; nil once its first bytes are gone from the buffer (then it
    /// is not remembered).
    private var headStart: Int?
    /// The last target split and decoded, and the last `Host` value found valid.
    private var recentTarget = TargetCache()
    private var validHost: String?
    private var headers = HTTPHeaders()
    private var trailers = HTTPHeaders()
    private var trailerBytes = 0
    private var body: [UInt8] = []
    private var keepAlive = true

    init(limits: HTTPLimits, remoteAddress: String? = nil) {
        self.limits = limits
        self.activeLimits = limits
        self.remoteAddress = remoteAddress
    }

    /// Bytes received but not yet consumed by a complete request.
    var bufferedByteCount: Int { buffer.count - start }

    /// Removes and returns the bytes received after the last complete request (a connection switching protocols
    /// hands them to the new one).
    mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        scanOffset = 0
        headStart = nil
        return rest
    }

    var phase: Phase {
        switch state {
        case .head: (headBytes == 0 && buffer.count == start) ? .idle : .head
        case .failed: .failed
        default: .body
        }
    }

    /// Appends received bytes.
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        guard !isFailed else { return }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            // A head whose first lines were consumed loses them here.
            headStart = headStart == start ? 0 : nil
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    private var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Parses as far as the buffered bytes allow and returns the next action.
    mutating func next() -> Action {
        do {
            return try step()
        } catch {
            return fail(error)
        }
    }

    private mutating func step() throws(Rejection) -> Action {
        while true {
            switch state {
            case .failed:
                return .needMoreData
            case .head:
                if headBytes == 0 && !requestLineSeen {
                    activeLimits = limits
                    if let taken = takeRecentHead() {
                        if let action = taken { return action }
                        continue
                    }
                    headStart = start
                }
                if let action = try parseHeadLine() { return action }
            case .fixedBody(let length):
                guard buffer.count - start >= length else { return .needMoreData }
                body = Array(buffer[start..<start + length])
                start += length
                return completeRequest()
            case .chunkSize:
                guard
                    case .line(let range) = try nextLine(
                        limit: activeLimits.maxChunkLineLength,
                        tooLong: .badRequest("chunk size line too long")
                    )
                else { return .needMoreData }
                let size = try parseChunkSize(buffer[range])
                guard size <= activeLimits.maxBodySize - body.count else {
                    throw .payloadTooLarge(limit: activeLimits.maxBodySize)
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let available = min(remaining, buffer.count - start)
                guard available > 0 else { return .needMoreData }
                body.append(contentsOf: buffer[start..<start + available])
                start += available
                state = remaining == available ? .chunkDataEnd : .chunkData(remaining: remaining - available)
            case .chunkDataEnd:
                guard buffer.count - start >= 2 else {
                    if buffer.count - start == 1 && buffer[start] != ASCII.cr {
                        throw .badRequest("chunk data not followed by CRLF")
                    }
                    return .needMoreData
                }
                guard buffer[start] == ASCII.cr && buffer[start + 1] == ASCII.lf else {
                    throw .badRequest("chunk data not followed by CRLF")
                }
                start += 2
                state = .chunkSize
            case .trailers:
                let budget = activeLimits.maxHeadSize - trailerBytes
                let maxHeadSize = activeLimits.maxHeadSize
                guard
                    case .line(let range) = try nextLine(
                        limit: budget,
                        tooLong: .headersTooLarge("trailer section larger than \(maxHeadSize) bytes")
                    )
                else {
                    return .needMoreData
                }
                trailerBytes += range.count + 2
                if range.isEmpty { return completeRequest() }
                guard trailers.count < activeLimits.maxHeaderCount else {
                    throw .headersTooLarge("more than \(activeLimits.maxHeaderCount) trailer fields")
                }
                let field = try Self.parseField(buffer[range])
                trailers.add(name: field.name, value: field.value)
            }
        }
    }

    // MARK: - Lines

    /// Finds the next CRLF-terminated line (without its CRLF) and consumes it.
    ///
    /// `limit` bounds the line length including CRLF; it is checked on partial lines too, so the outcome does not
    /// depend on how bytes were split.
    private mutating func nextLine(limit: Int, tooLong: @autoclosure () -> Rejection) throws(Rejection) -> LineResult {
        let searchStart = start + scanOffset
        // memchr: the line's end is found at memory speed, not by a loop over an array slice's indices.
        let found = buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard let base = bytes.baseAddress, searchStart < bytes.count,
                let hit = memchr(base + searchStart, Int32(ASCII.lf), bytes.count - searchStart)
            else { return nil }
            return UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
        }
        guard let lf = found else {
            scanOffset = buffer.count - start
            // A partial line that already exceeds the limit can only grow.
            if buffer.count - start > limit { throw tooLong() }
            return .incomplete
        }
        scanOffset = 0
        if lf + 1 - start > limit { throw tooLong() }
        guard lf > start && buffer[lf - 1] == ASCII.cr else {
            throw .badRequest("line ends with a bare LF; CRLF required")
        }
        let range = start..<(lf - 1)
        start = lf + 1
        return .line(range)
    }

    // MARK: - Head

    private mutating func parseHeadLine() throws(Rejection) -> Action? {
        let budget = activeLimits.maxHeadSize - headBytes
        if !requestLineSeen {
            try checkPartialRequestLineTarget(budget: budget)
        }
        let maxHeadSize = activeLimits.maxHeadSize
        // The message is built only when thrown: this runs once per header line.
        let result = try nextLine(
            limit: budget,
            tooLong: .headersTooLarge("request head larger than \(maxHeadSize) bytes")
        )
        guard case .line(let range) = result else {
            return .needMoreData
        }
        headBytes += range.count + 2
        if !requestLineSeen {
            // RFC 9112 §2.2: empty lines before the request line are ignored (they still count toward the limit).
            if range.isEmpty { return nil }
            let known = buffer.withUnsafeBufferPointer {
                recentRequestLine.value(for: UnsafeBufferPointer(rebasing: $0[range]), at: 0)
            }
            if let known {
                method = known.method
                version = known.version
                target = known.target
                absoluteAuthority = known.absoluteAuthority
            } else {
                try parseRequestLine(buffer[range])
                let line = RequestLine(
                    method: method,
                    version: version,
                    target: target,
                    absoluteAuthority: absoluteAuthority
                )
                recentRequestLine.remember(buffer[range], line, at: 0)
            }
            requestLineSeen = true
            return nil
        }
        if range.isEmpty {
            return try finishHead()
        }
        guard headers.count < activeLimits.maxHeaderCount else {
            throw .headersTooLarge("more than \(activeLimits.maxHeaderCount) header fields")
        }
        let position = headers.count
        if position == 0 {
            // Most requests carry a handful of fields: one allocation instead of growing 1, 2, 4, 8.
            headers = HTTPHeaders(capacity: 8)
        }
        let known = buffer.withUnsafeBufferPointer {
            recentFields.value(for: UnsafeBufferPointer(rebasing: $0[range]), at: position)
        }
        if let known {
            headers.add(name: known.name, value: known.value)
        } else {
            let field = try Self.parseField(buffer[range])
            recentFields.remember(buffer[range], field, at: position)
            headers.add(name: field.name, value: field.value)
        }
        return nil
    }

    /// Rejects a request line whose target is already too long, complete or not (414 before 431).
    ///
    /// Only the bytes that fit in the head's `budget` (plus the one that overflows it) are examined: byte by byte,
    /// the head limit fires as soon as that byte arrives, so looking further when more bytes came in one read
    /// would make the outcome depend on how the input was split (found by the fuzzer).
    private func checkPartialRequestLineTarget(budget: Int) throws(Rejection) {
        let visibleEnd = min(buffer.count, start + max(budget, 0) + 1)
        let pending = buffer[start..<visibleEnd]
        let lineEnd = pending.firstIndex(of: ASCII.lf) ?? visibleEnd
        let line = buffer[start..<lineEnd]
        guard let firstSpace = line.firstIndex(of: ASCII.space) else { return }
        let targetStart = firstSpace + 1
        let targetEnd = line[targetStart...].firstIndex(of: ASCII.space) ?? lineEnd
        if targetEnd - targetStart > activeLimits.maxTargetLength {
            throw .uriTooLong(limit: activeLimits.maxTargetLength)
        }
    }

    private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(Rejection) {
        guard let firstSpace = line.firstIndex(of: ASCII.space) else {
            throw .badRequest("malformed request line")
        }
        let methodBytes = line[line.startIndex..<firstSpace]
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: ASCII.space) else {
            throw .badRequest("malformed request line")
        }
        let targetBytes = rest[rest.startIndex..<secondSpace]
        let versionBytes = rest[(secondSpace + 1)...]
        if targetBytes.count > activeLimits.maxTargetLength {
            throw .uriTooLong(limit: activeLimits.maxTargetLength)
        }
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isTokenCharacter) else {
            throw .badRequest("invalid method")
        }
        method = String(decoding: methodBytes, as: UTF8.self)
        version = try parseVersion(versionBytes)
        guard !targetBytes.isEmpty else { throw .badRequest("empty request target") }
        // Visible ASCII only: no SP, CTL, DEL or non-ASCII; a fragment is never sent (RFC 9112 §3.2).
        guard targetBytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "#") }) else {
            throw .badRequest("invalid character in request target")
        }
        target = String(decoding: targetBytes, as: UTF8.self)
        if target == "*" {
            guard method == "OPTIONS" else { throw .badRequest("asterisk-form target is only allowed for OPTIONS") }
        } else if !target.hasPrefix("/") {
            // absolute-form (RFC 9112 §3.2.2): a server MUST accept it; it is served as its origin-form.
            guard let absolute = RequestTarget.absoluteForm(target) else {
                throw .badRequest("request target must be origin-form (\"/path\") or an absolute http URI")
            }
            absoluteAuthority = absolute.authority
            target = absolute.originForm
        }
    }

    private func parseVersion(_ bytes: ArraySlice<UInt8>) throws(Rejection) -> HTTPVersion {
        let base = bytes.startIndex
        guard bytes.count == 8, bytes[base..<base + 5].elementsEqual("HTTP/".utf8),
            bytes[base + 6] == UInt8(ascii: "."),
            let major = Self.digit(bytes[base + 5]), let minor = Self.digit(bytes[base + 7])
        else {
            throw .badRequest("malformed HTTP version")
        }
        guard major == 1 else {
            throw Rejection(
                status: .httpVersionNotSupported,
                code: "HTTP_VERSION_NOT_SUPPORTED",
                message: "only HTTP/1.x is supported"
            )
        }
        return minor == 0 ? .http1_0 : .http1_1
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws(Rejection) -> (name: String, value: String) {
        guard let first = line.first, first != ASCII.space && first != ASCII.tab else {
            throw .badRequest("obsolete line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .badRequest("header field without a colon")
        }
        let nameBytes = line[line.startIndex..<colon]
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(ASCII.isTokenCharacter) else {
            throw .badRequest("invalid header field name")
        }
        guard let value = line[(colon + 1)...].withUnsafeBufferPointer(ASCII.fieldValue) else {
            throw .badRequest("invalid character in header field value")
        }
        return (String(decoding: nameBytes, as: UTF8.self), value)
    }

    // MARK: - Framing (RFC 9112 §6)

    private mutating func finishHead() throws(Rejection) -> Action? {
        // Decoded now so that a bad escape is refused before any body is read.
        let decoded = try recentTarget.decode(target)
        rawPath = decoded.rawPath
        path = decoded.path
        query = decoded.query

        // One pass over the fields for every one framing needs (each name compared once, not once per lookup).
        let framing = FramingFields(headers)
        if framing.hosts.count > 1 { throw .badRequest("more than one Host header field") }
        if version == .http1_1 && framing.hosts.isEmpty { throw .badRequest("missing Host header field") }
        // RFC 9112 §3.2.2: with an absolute-form target the Host field's value is ignored and the target's
        // authority stands in its place (the field must still be present on HTTP/1.1, and only once).
        if let authority = absoluteAuthority {
            guard HostSyntax.isValid(authority.utf8, allowingEmpty: false) else {
                throw .badRequest("invalid authority in the request target")
            }
        } else if let host = framing.hosts.first, !(validHost?.hasSameBytes(as: host) ?? false) {
            guard HostSyntax.isValid(host.utf8, allowingEmpty: true) else {
                throw .badRequest("invalid Host header field")
            }
            validHost = host
        }

        let connectionTokens = framing.connection.isEmpty ? [] : HTTPHeaders.listTokens(of: framing.connection.all)
        switch version {
        case .http1_1: keepAlive = !connectionTokens.contains("close")
        case .http1_0: keepAlive = connectionTokens.contains("keep-alive") && !connectionTokens.contains("close")
        case .http2: keepAlive = true  // never parsed from a request line
        }

        var expectsContinue = false
        if !framing.expect.isEmpty {
            let expectations = HTTPHeaders.listTokens(of: framing.expect.all)
            if expectations != ["100-continue"] {
                throw Rejection(
                    status: .expectationFailed,
                    code: "EXPECTATION_FAILED",
                    message: "only the 100-continue expectation is supported"
                )
            }
            // RFC 9110 §10.1.1: a 100-continue expectation in an HTTP/1.0 request is ignored.
            expectsContinue = version == .http1_1
        }

        let hasContentLength = !framing.contentLength.isEmpty
        if !framing.transferEncoding.isEmpty {
            if version == .http1_0 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            if hasContentLength { throw .badRequest("both Content-Length and Transfer-Encoding") }
            let codings = HTTPHeaders.listTokens(of: framing.transferEncoding.all)
            guard codings == ["chunked"] else {
                if codings.last != "chunked" && codings.contains("chunked") || codings.isEmpty
                    || codings.filter({ $0 == "chunked" }).count > 1
                {
                    throw .badRequest("chunked must be the final transfer coding, applied once")
                }
                throw Rejection(
                    status: .notImplemented,
                    code: "NOT_IMPLEMENTED",
                    message: "only the chunked transfer coding is supported"
                )
            }
            return finishHead(framing: .chunked(expectsContinue: expectsContinue))
        }

        var length = 0
        if hasContentLength {
            length = try parseContentLength(framing.contentLength)
        }
        if length == 0 {
            return finishHead(framing: .none)
        }
        return finishHead(framing: .fixed(length: length, expectsContinue: expectsContinue))
    }

    /// Remembers the head just parsed, then goes on as its framing says.
    private mutating func finishHead(framing: HeadBytesCache.Framing) -> Action? {
        if let headStart {
            let parsed = HeadBytesCache.Parsed(
                method: method,
                version: version,
                target: target,
                absoluteAuthority: absoluteAuthority,
                rawPath: rawPath,
                path: path,
                query: query,
                headers: headers,
                keepAlive: keepAlive,
                framing: framing
            )
            recentHead.remember(buffer[headStart..<start], parsed, limits: activeLimits)
        }
        return proceed(after: framing)
    }

    /// Takes the head at `start` as parsed before when its bytes are the remembered head's (see ``HeadBytesCache``):
    /// nil when they are not; otherwise what ``proceed(after:)`` says.
    private mutating func takeRecentHead() -> Action?? {
        let hit = buffer.withUnsafeBufferPointer {
            recentHead.match(UnsafeBufferPointer(rebasing: $0[start...]), limits: activeLimits)
        }
        guard let hit else { return nil }
        let parsed = hit.parsed
        let length = hit.length
        method = parsed.method
        version = parsed.version
        target = parsed.target
        absoluteAuthority = parsed.absoluteAuthority
        rawPath = parsed.rawPath
        path = parsed.path
        query = parsed.query
        headers = hit.headers
        keepAlive = parsed.keepAlive
        start += length
        scanOffset = 0
        headBytes = length
        requestLineSeen = true
        return .some(proceed(after: hit.framing))
    }

    /// After a complete head: the request when it has no body, else the state that reads the body.
    private mutating func proceed(after framing: HeadBytesCache.Framing) -> Action? {
        switch framing {
        case .none:
            return completeRequest()
        case .fixed(let length, let expectsContinue):
            state = .fixedBody(length: length)
            return expectsContinue ? .send100Continue : nil
        case .chunked(let expectsContinue):
            state = .chunkSize
            return expectsContinue ? .send100Continue : nil
        }
    }

    private func parseContentLength(_ values: FieldValues) throws(Rejection) -> Int {
        // The common case: one field of a few digits.
        if values.count == 1, let only = values.first, let length = FramingFields.plainLength(only) {
            guard length <= activeLimits.maxBodySize else { throw .payloadTooLarge(limit: activeLimits.maxBodySize) }
            return length
        }
        var result: Int?
        for value in values.all {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = element.trimmingOWS()
                guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw .badRequest("invalid Content-Length")
                }
                // Leading zeros do not change the value; anything past the body limit is refused unread.
                let significant = digits.drop { $0 == "0" }
                let parsed: Int
                if significant.utf8.count > 18 {
                    parsed = Int.max
                } else {
                    parsed = Int(significant) ?? 0
                }
                if let previous = result, previous != parsed {
                    throw .badRequest("conflicting Content-Length values")
                }
                result = parsed
            }
        }
        let length = result ?? 0
        if length > activeLimits.maxBodySize {
            throw .payloadTooLarge(limit: activeLimits.maxBodySize)
        }
        return length
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(Rejection) -> Int {
        let digits = line.prefix { ASCII.isHexDigit($0) }
        guard !digits.isEmpty else { throw .badRequest("invalid chunk size") }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        // A size that does not fit in 63 bits is no size at all: a framing error (400), not a large body (413).
        guard significant.count <= 16, significant.count < 16 || ASCII.hexValue(significant.first!)! < 8 else {
            throw .badRequest("invalid chunk size: too large to represent")
        }
        var size = 0
        for byte in significant { size = size << 4 | Int(ASCII.hexValue(byte)!) }
        // RFC 9112 §7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ).
        var rest = line[digits.endIndex...]
        while let byte = rest.first, byte == ASCII.space || byte == ASCII.tab { rest.removeFirst() }
        if let first = rest.first {
            guard first == UInt8(ascii: ";"), rest.allSatisfy(ASCII.isFieldValueCharacter) else {
                throw .badRequest("invalid chunk size")
            }
        }
        return size
    }

    // MARK: - Completion

    private mutating func completeRequest() -> Action {
        var request = HTTPRequest(method: method, target: "/", version: version, remoteAddress: remoteAddress)
        request.target = target
        request.rawPath = rawPath
        request.path = path
        request.query = query
        request.headers = headers
        request.trailers = trailers
        request.body = body
        request.keepAlive = keepAlive
        resetForNextRequest()
        return .requestComplete(request)
    }

    private mutating func fail(_ rejection: Rejection) -> Action {
        state = .failed
        buffer = []
        start = 0
        return .reject(rejection)
    }

    private mutating func resetForNextRequest() {
        state = .head
        headBytes = 0
        requestLineSeen = false
        method = ""
        target = ""
        absoluteAuthority = nil
        // Made with room for a handful of fields when the first one is parsed (a remembered head brings its own).
        headers = HTTPHeaders()
        trailers = HTTPHeaders()
        trailerBytes = 0
        body = []
        scanOffset = 0
        if buffer.capacity > 256 * 1024 {
            // Do not keep a large body's capacity for the rest of a keep-alive connection.
            buffer = Array(buffer[start...])
            start = 0
        } else if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
