/// Serializes a response's status line and header section (RFC 9112 §4, §6).
enum ResponseHead {
    /// How the content is delimited.
    enum Framing: Equatable {
        /// No content at all (1xx, 204, 304): no length field.
        case none
        /// `Content-Length`.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Content runs until the connection closes (streaming to an HTTP/1.0 client).
        case closeDelimited
    }

    /// Fields the server sets itself; a handler's copy is dropped so that framing cannot be corrupted.
    private static let serverOwnedFields = [
        "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Date", "Upgrade", "Trailer",
    ]
    /// Bit n set: some server-owned name has n bytes (a mask, not a `Set`: no hashing per field).
    private static let serverOwnedLengths: UInt64 = serverOwnedFields.reduce(0) { $0 | 1 << $1.utf8.count }

    /// The response head; `serverHeader` must be a valid field value (``HTTPServer`` checks the configured one once).
    static func serialize(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?,
        checked: inout ResponseFieldCache
    ) -> [UInt8] {
        var head: [UInt8] = []
        head.reserveCapacity(256)
        write(
            status: status,
            headers: headers,
            framing: framing,
            keepAlive: keepAlive,
            version: version,
            serverHeader: serverHeader,
            checked: &checked,
            to: &head
        )
        return head
    }

    /// Appends the response head to `head` (a connection's output: no array of its own).
    ///
    /// The head is formed in a stack buffer and appended in one copy: some fifteen pieces appended to the array
    /// one by one cost more than the copy (each append checks the array's uniqueness and capacity). A head too
    /// large for the buffer is appended piece by piece.
    static func write(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?,
        checked: inout ResponseFieldCache,
        into head: inout [UInt8]
    ) {
        func writeHead(to output: inout some ByteOutput) {
            write(
                status: status,
                headers: headers,
                framing: framing,
                keepAlive: keepAlive,
                version: version,
                serverHeader: serverHeader,
                checked: &checked,
                to: &output
            )
        }
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var fixed = FixedByteBuffer(buffer)
            writeHead(to: &fixed)
            guard !fixed.hasOverflowed else { return false }
            head.append(contentsOf: fixed.written)
            return true
        }
        if !written {
            writeHead(to: &head)
        }
    }

    private static func write<Output: ByteOutput>(
        status: HTTPStatus,
        headers: HTTPHeaders,
        framing: Framing,
        keepAlive: Bool,
        version: HTTPVersion,
        serverHeader: String?,
        checked: inout ResponseFieldCache,
        to head: inout Output
    ) {
        // Built as bytes, not by String concatenation: this runs once per response.
        head.appendLiteral("HTTP/1.1 ")
        head.appendDecimal(status.finalCode)
        head.appendLiteral(" ")
        head.appendUTF8(sanitizedReason(status.finalReasonPhrase))
        head.appendLiteral("\r\nDate: ")
        HTTPDate.withCurrentBytes { head.appendBytes($0) }
        head.appendLiteral("\r\n")
        if let serverHeader {
            appendField("Server", serverHeader, to: &head)
        }
        for (name, value) in headers {
            // Past the stack buffer: the head is written again into the array, so stop checking fields here.
            guard !head.hasOverflowed else { return }
            guard !isServerOwned(name) else { continue }
            if serverHeader != nil && HTTPHeaders.namesEqual(name, "Server") { continue }
            // Response splitting: a name or value with CR/LF would let a handler's data forge fields.
            guard checked.check(name: name, value: value) != nil else { continue }
            appendField(name, value, to: &head)
        }
        switch framing {
        case .none: break
        case .contentLength(let length):
            head.appendLiteral("Content-Length: ")
            head.appendDecimal(length)
            head.appendLiteral("\r\n")
        case .chunked: head.appendLiteral("Transfer-Encoding: chunked\r\n")
        case .closeDelimited: break
        }
        if !keepAlive {
            head.appendLiteral("Connection: close\r\n")
        } else if version == .http1_0 {
            head.appendLiteral("Connection: keep-alive\r\n")
        }
        head.appendLiteral("\r\n")
    }

    private static func appendField(_ name: String, _ value: String, to head: inout some ByteOutput) {
        head.appendUTF8(name)
        head.appendLiteral(": ")
        head.appendUTF8(value)
        head.appendLiteral("\r\n")
    }

    /// Whether `name` is one of `serverOwnedFields`; the length rules out most names before any comparison.
    @inline(__always) static func isServerOwned(_ name: String) -> Bool {
        let length = name.utf8.count
        return length < 64 && serverOwnedLengths & (1 << length) != 0
            && serverOwnedFields.contains { HTTPHeaders.namesEqual($0, name) }
    }

    static func isValidValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { $0.allSatisfy(ASCII.isFieldValueCharacter) }
    }

    private static func sanitizedReason(_ reason: String) -> String {
        isValidValue(reason) ? reason : "Unknown"
    }

    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The framing of one chunk (RFC 9112 §7.1).
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        var framed = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        framed.reserveCapacity(framed.count + bytes.count + 2)
        framed.append(contentsOf: bytes)
        framed.append(contentsOf: [ASCII.cr, ASCII.lf])
        return framed
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)
}

/// Where response heads and their pieces are written: a byte array, or a fixed buffer on the stack.
protocol ByteOutput {
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func appendByte(_ byte: UInt8)
    /// Whether something did not fit (a fixed buffer); what is written then will be discarded.
    var hasOverflowed: Bool { get }
}

extension ByteOutput {
    /// Appends a literal's bytes with one copy.
    @inline(__always)
    mutating func appendLiteral(_ literal: StaticString) {
        if literal.hasPointerRepresentation {
            appendBytes(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        } else {
            literal.withUTF8Buffer { appendBytes($0) }
        }
    }

    /// Appends an integer in decimal, digit by digit (no string built).
    mutating func appendDecimal(_ value: Int) {
        guard value >= 0 else {
            appendUTF8(String(value))
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            appendByte(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends a string's UTF-8 bytes with one copy (a `String.UTF8View` is appended byte by byte).
    @inline(__always)
    mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { appendBytes($0) }
    }
}

extension [UInt8]: ByteOutput {
    var hasOverflowed: Bool { false }

    @inline(__always)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }

    @inline(__always)
    mutating func appendByte(_ byte: UInt8) {
        append(byte)
    }
}

/// Bytes written into a fixed buffer; what does not fit sets `hasOverflowed` (and is not written).
struct FixedByteBuffer: ByteOutput {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private(set) var hasOverflowed = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    var written: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer.baseAddress, count: count)
    }

    @inline(__always)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= buffer.count - count else {
            hasOverflowed = true
            return
        }
        if let source = bytes.baseAddress {
            (buffer.baseAddress! + count).update(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    @inline(__always)
    mutating func appendByte(_ byte: UInt8) {
        guard count < buffer.count else {
            hasOverflowed = true
            return
        }
        buffer[count] = byte
        count += 1
    }
}
