/// What a connection's last requests had in common, checked once: a client sends the same `:authority` and often
/// the same `:path` on every stream, and the header value cache hands back the same strings for them, so the
/// session compares a string (its storage first) instead of validating and decoding the target again.
///
/// Key: the last valid `:authority`; the last target (``TargetCache``); the serial of the head the last request was
/// built from. Bound: one of each. Invalidated by: the next different value of each.
struct HTTP2RequestCache {
    /// The last `:authority` found valid.
    var validAuthority: String?
    /// The last target checked and decoded.
    var target = TargetCache()
    /// The request last built from a remembered head (``HTTP2RequestHead/serial``), without its body: a head of the
    /// same serial came from the same bytes, so it makes the same request.
    var request: (serial: UInt64, request: HTTPRequest)?
}
