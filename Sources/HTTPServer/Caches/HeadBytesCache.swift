import Glibc

/// A connection's last complete request head — from the request line to the empty line that ends it — as bytes,
/// with everything parsing it produced: a keep-alive client (a service calling the same endpoint, a load
/// generator) sends the very same head again and again, and a head with the same bytes, parsed under the same
/// limits, parses to the same request, the same framing and the same checks passed.
///
/// Only a byte-for-byte equal head is taken (one `memcmp`), and only under equal limits (a reload that changes
/// them parses the next head afresh); anything else goes through the parser and its line-by-line checks, and
/// becomes the remembered head if it parses. Heads longer than ``maxBytes`` are not kept.
///
/// Key: the head's exact bytes and the limits it was parsed under. Bound: one head of at most ``maxBytes``.
/// Invalidated by: the next head that differs (it replaces this one once it parses).
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

    /// What the parser sets from a head.
    struct Parsed {
        var method: String
        var version: HTTPVersion
        var target: String
        var absoluteAuthority: Substring?
        var rawPath: String
        var path: String
        var query: [(name: String, value: String)]
        var headers: HTTPHeaders
        var keepAlive: Bool
        var framing: Framing
    }

    private var bytes: [UInt8] = []
    private var limits: HTTPLimits?
    private var parsed: Parsed?

    /// The head at the start of `buffer` when its bytes are the remembered head's and `limits` are the ones it was
    /// parsed under; with its length.
    func match(_ buffer: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> (parsed: Parsed, length: Int)? {
        guard let parsed, !bytes.isEmpty, buffer.count >= bytes.count, let base = buffer.baseAddress else {
            return nil
        }
        let same = bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, $0.count) == 0 }
        guard same, self.limits == limits else { return nil }
        return (parsed, bytes.count)
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
    }

    mutating func forget() {
        bytes.removeAll(keepingCapacity: true)
        limits = nil
        parsed = nil
    }
}
