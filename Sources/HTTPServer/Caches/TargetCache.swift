/// A request target taken apart and decoded as ``HTTPRequest`` carries it. A class: handing the remembered one
/// back costs one reference, not one per field (about 100 instructions a request as a struct).
final class DecodedTarget {
    /// The target as sent (origin-form, or `*`).
    let target: String
    /// The path as sent, before percent-decoding.
    let rawPath: String
    /// The percent-decoded path (`*` for the asterisk-form).
    let path: String
    /// The decoded query pairs, in order.
    let query: [(name: String, value: String)]

    /// Decodes `target`, an origin-form target or `*` whose characters and form the caller has checked (the request
    /// line's parser, or the HTTP/2 `:path` checks).
    ///
    /// - Throws: 400 for a path or query whose percent-encoding is invalid (a bad escape, an encoded NUL, bytes that
    ///   are not UTF-8).
    init(_ target: String) throws(RequestParser.Rejection) {
        let parts = RequestTarget.split(target)
        var path = "*"
        if target != "*" {
            guard let decoded = RequestTarget.percentDecode(parts.rawPath, plusAsSpace: false) else {
                throw .badRequest("invalid percent-encoding in path")
            }
            path = decoded
        }
        var query: [(name: String, value: String)] = []
        if let rawQuery = parts.rawQuery {
            guard let decoded = RequestTarget.decodeQuery(rawQuery) else {
                throw .badRequest("invalid percent-encoding in query")
            }
            query = decoded
        }
        self.target = target
        rawPath = parts.rawPath
        self.path = path
        self.query = query
    }
}

/// The last target a connection decoded: clients send the same target request after request, and the header value
/// caches hand back the same string for it, so the next request's target is compared (its storage first) instead of
/// decoded again. Used by the HTTP/1.1 parser and the HTTP/2 session alike.
///
/// Key: the request target string (its storage, then its bytes). Bound: one target. Invalidated by: the next
/// different target.
struct TargetCache {
    private var last: DecodedTarget?

    /// The decoded target when `target` is the last one decoded, else nil.
    func recent(_ target: String) -> DecodedTarget? {
        guard let last, last.target.hasSameBytes(as: target) else { return nil }
        return last
    }

    /// `target` decoded (see ``DecodedTarget/init(_:)``), from the last one when it is the same.
    mutating func decode(_ target: String) throws(RequestParser.Rejection) -> DecodedTarget {
        if let recent = recent(target) { return recent }
        let decoded = try DecodedTarget(target)
        last = decoded
        return decoded
    }
}
