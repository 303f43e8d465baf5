import CNGHTTP2
import Glibc

/// The buffers of one received header field as libnghttp2 hands them over (`nghttp2_rcbuf`).
struct HeaderFieldBuffers: Equatable {
    var name: OpaquePointer
    var value: OpaquePointer

    /// Takes a reference to both buffers: while it is held, no other buffer can be allocated at their addresses.
    func retain() {
        nghttp2_rcbuf_incref(name)
        nghttp2_rcbuf_incref(value)
    }

    func release() {
        nghttp2_rcbuf_decref(name)
        nghttp2_rcbuf_decref(value)
    }

    /// Whether `other` is the same field: the very same buffers (an indexed field), or buffers with the same bytes
    /// (a literal one: libnghttp2's own clients never index `:path` or `content-length`, for one).
    func hasSameBytes(as other: HeaderFieldBuffers) -> Bool {
        if self == other { return true }
        return Self.equal(nameBytes, other.nameBytes) && Self.equal(valueBytes, other.valueBytes)
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let first = a.baseAddress, let second = b.baseAddress else { return true }
        return first == second || memcmp(first, second, a.count) == 0
    }

    /// The name's bytes, valid while the buffer is.
    var nameBytes: UnsafeBufferPointer<UInt8> { Self.bytes(of: name) }
    /// The value's bytes, valid while the buffer is.
    var valueBytes: UnsafeBufferPointer<UInt8> { Self.bytes(of: value) }

    private static func bytes(of buffer: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
        let vector = nghttp2_rcbuf_get_buf(buffer)
        return UnsafeBufferPointer(start: vector.base, count: vector.len)
    }
}

/// A session's last request header block that was received whole and within the limits: its fields' buffers, held,
/// and the head built from them — the HTTP/2 counterpart of the HTTP/1.1 parser's ``HeadBytesCache``.
///
/// A client sends the same header block on every stream. HPACK sends a repeated field as an index into its table,
/// and for an indexed field libnghttp2 hands over the table entry's own buffers, the same ones every time: a buffer
/// is immutable, and while this block holds a reference to it no other buffer can take its address, so the same
/// buffer is the same bytes, found with one comparison. A field sent as a literal comes in a new buffer, compared by
/// its bytes. A block whose fields are these, in the same order and as many, has these bytes, and its head is taken
/// whole: no field is decoded, checked or copied into a string again. Any other block is taken field by field.
///
/// Key: the block's fields' buffers (the same buffer, or the same bytes), in order. Bound: one block, its buffers
/// held. Invalidated by: the next whole block that differs (it replaces this one), and the session's end.
final class HeaderBlockCache {
    /// The fields' buffers, in order, each held.
    let fields: [HeaderFieldBuffers]
    /// The head built from them, finished, with its serial.
    let head: HTTP2RequestHead
    /// The stream's header list size, field count and declared `content-length` once the block was taken.
    let headerListSize: Int
    let declaredLength: Int?
    let sawContentLength: Bool

    /// Takes over `fields`, which the caller has retained.
    init(
        fields: [HeaderFieldBuffers],
        head: HTTP2RequestHead,
        headerListSize: Int,
        declaredLength: Int?,
        sawContentLength: Bool
    ) {
        self.fields = fields
        self.head = head
        self.headerListSize = headerListSize
        self.declaredLength = declaredLength
        self.sawContentLength = sawContentLength
    }

    deinit {
        for field in fields { field.release() }
    }
}
