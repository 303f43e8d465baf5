import CNGHTTP2

/// A response's header block as libnghttp2 takes it: `:status` first, then the fields, every name and value in one
/// byte buffer that the session reuses for each response (libnghttp2 copies the fields when the response is
/// submitted), so answering a stream builds no strings and allocates nothing once the buffers have grown. The
/// buffers are raw memory owned here: each append is a bounds check and a copy.
final class HTTP2ResponseFields: ByteOutput {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity: Int
    private var byteCount = 0
    /// Where each field starts in `bytes`, and its name's and value's lengths (the value follows the name).
    private var spans: [(start: Int, name: Int, value: Int)] = []
    private var nameValues: [nghttp2_nv] = []
    private var checked = ResponseFieldCache()
    /// The server's and the handler's fields of the last response that went through ``appendFields(of:server:)``,
    /// as appended (bytes, and spans from their start). `headers` is held, so its storage cannot be reused by other
    /// fields while it is remembered.
    private var recentFields: (headers: HTTPHeaders, server: String?, bytes: [UInt8], spans: [(Int, Int, Int)])?

    init() {
        byteCapacity = 256
        bytes = .allocate(capacity: byteCapacity)
        spans.reserveCapacity(8)
        nameValues.reserveCapacity(8)
    }

    deinit { bytes.deallocate() }

    /// Makes room for `extra` more bytes.
    private func reserve(_ extra: Int) {
        guard byteCount + extra > byteCapacity else { return }
        let capacity = max(byteCapacity * 2, byteCount + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = grown
        byteCapacity = capacity
    }

    // ByteOutput: the pieces of names and values, appended to `bytes`.

    func appendBytes(_ source: UnsafeBufferPointer<UInt8>) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        reserve(source.count)
        (bytes + byteCount).update(from: base, count: source.count)
        byteCount += source.count
    }

    func appendByte(_ byte: UInt8) {
        reserve(1)
        bytes[byteCount] = byte
        byteCount += 1
    }

    var hasOverflowed: Bool { false }

    /// Starts a new header block with `:status`: ``HTTPStatus/finalCode`` (a code other than a final response's,
    /// 200...599, is sent as 500, as on HTTP/1.1).
    func reset(status: Int) {
        byteCount = 0
        spans.removeAll(keepingCapacity: true)
        let code = HTTPStatus.finalCode(status)
        var output = self
        output.appendLiteral(":status")
        reserve(3)
        bytes[byteCount] = UInt8(ascii: "0") + UInt8(code / 100)
        bytes[byteCount + 1] = UInt8(ascii: "0") + UInt8(code / 10 % 10)
        bytes[byteCount + 2] = UInt8(ascii: "0") + UInt8(code % 10)
        byteCount += 3
        spans.append((0, 7, 3))
    }

    /// Appends a field whose name is the server's own (lower case, a token) and whose value the caller has checked.
    func append(_ name: StaticString, _ value: String) {
        let start = byteCount
        var output = self
        output.appendLiteral(name)
        output.appendUTF8(value)
        spans.append((start, name.utf8CodeUnitCount, byteCount - start - name.utf8CodeUnitCount))
    }

    /// Appends `date` with the current time (RFC 9110 §6.6.1).
    func appendDate() {
        let start = byteCount
        var output = self
        output.appendLiteral("date")
        HTTPDate.withCurrentBytes { appendBytes($0) }
        spans.append((start, 4, byteCount - start - 4))
    }

    /// Appends a field whose value is a non-negative decimal number.
    func append(_ name: StaticString, decimal value: Int) {
        let start = byteCount
        var output = self
        output.appendLiteral(name)
        output.appendDecimal(value)
        spans.append((start, name.utf8CodeUnitCount, byteCount - start - name.utf8CodeUnitCount))
    }

    /// Appends a handler's field with its name in lower case (RFC 9113 §8.2.1); a name that is not a token or a
    /// value with a byte a field value may not carry (CR, LF, NUL: response splitting) drops the field. Returns
    /// whether it was kept.
    @discardableResult
    func append(checkedName name: String, value: String) -> Bool {
        guard let hasUpperCase = checked.check(name: name, value: value) else { return false }
        let start = byteCount
        var output = self
        output.appendUTF8(name)
        let nameLength = byteCount - start
        if hasUpperCase {
            for index in start..<byteCount { bytes[index] = ASCII.lowercased(bytes[index]) }
        }
        output.appendUTF8(value)
        spans.append((start, nameLength, byteCount - start - nameLength))
        return true
    }

    /// Appends `server` (when set: the server's own value, checked) and then the handler's `headers`, less those the
    /// server owns (framing, `Date`), the connection-specific ones HTTP/2 forbids, and the handler's `Server` when
    /// the server sends its own; names lower-cased (RFC 9113 §8.2.1), a field that is not a valid name and value
    /// dropped. A handler usually answers with one shared set of fields: when `headers` shares the storage of the
    /// last response's and `server` has the same bytes, the bytes appended then are appended again.
    func appendFields(of headers: HTTPHeaders, server: String?) {
        if let recent = recentFields, recent.headers.hasSameStorage(as: headers),
            recent.server == nil ? server == nil : server.map(recent.server!.hasSameBytes) ?? false
        {
            let base = byteCount
            recent.bytes.withUnsafeBufferPointer { appendBytes($0) }
            for span in recent.spans { spans.append((base + span.0, span.1, span.2)) }
            return
        }
        let startByte = byteCount
        let startSpan = spans.count
        if let server { append("server", server) }
        for (name, value) in headers {
            guard !ResponseHead.isServerOwned(name), !HTTP2Upgrade.isConnectionSpecific(name) else { continue }
            if server != nil && HTTPHeaders.namesEqual(name, "Server") { continue }
            append(checkedName: name, value: value)
        }
        recentFields = (
            headers,
            server,
            Array(UnsafeBufferPointer(start: bytes + startByte, count: byteCount - startByte)),
            spans[startSpan...].map { ($0.start - startByte, $0.name, $0.value) }
        )
    }

    /// Number of fields, `:status` included.
    var count: Int { spans.count }

    /// Calls `body` with the fields as libnghttp2 name/value pairs, valid during the call only.
    func withNameValues<R>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        nameValues.removeAll(keepingCapacity: true)
        for span in spans {
            nameValues.append(
                nghttp2_nv(
                    name: bytes + span.start,
                    value: bytes + span.start + span.name,
                    namelen: span.name,
                    valuelen: span.value,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                )
            )
        }
        return nameValues.withUnsafeBufferPointer(body)
    }
}
