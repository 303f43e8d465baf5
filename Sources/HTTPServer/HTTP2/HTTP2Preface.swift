/// The HTTP/2 client connection preface (RFC 9113 §3.4) a prior-knowledge h2c client sends first.
enum HTTP2Preface {
    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, 24 bytes.
    static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// What the first bytes received on a new connection say about its protocol.
    enum Match: Equatable, Sendable {
        /// The 24-byte preface is complete: the connection is HTTP/2.
        case http2
        /// The bytes so far are a proper prefix of the preface: wait for more before deciding.
        case needMore
        /// The bytes differ from the preface: the connection is HTTP/1.x.
        case http1
    }

    /// Classifies the first bytes of a connection (`buffer` from its start), without copying them.
    static func match(_ buffer: UnsafeRawBufferPointer) -> Match {
        let count = min(buffer.count, bytes.count)
        for index in 0..<count where buffer[index] != bytes[index] {
            return .http1
        }
        return count == bytes.count ? .http2 : .needMore
    }
}
