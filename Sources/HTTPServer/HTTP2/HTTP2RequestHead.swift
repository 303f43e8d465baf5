/// A request stream's header section as its fields arrive: the pseudo-header fields by name, the others in order
/// in the ``HTTPHeaders`` the request will carry (not copied again when the request is built).
///
/// A class: a head passes from the stream to its event to the request, and a remembered one
/// (``HeaderBlockCache``) to every stream that repeats its block, each a reference, not a copy of seven fields.
/// Built on its session's event loop while the stream's header block arrives; not changed once finished.
final class HTTP2RequestHead {
    private(set) var method: String?
    private(set) var path: String?
    private(set) var authority: String?
    private(set) var scheme: String?
    /// The first `host` field.
    private(set) var host: String?
    private(set) var headers: HTTPHeaders
    /// Which header block of its session this head was built from, when the session remembered that block
    /// (``HeaderBlockCache``): two heads of one session with the same nonzero serial came from the same bytes, so
    /// what was checked and decoded from one holds for the other. Zero: not remembered.
    var serial: UInt64 = 0

    /// An empty head (allocating nothing: a head taken whole from a remembered block replaces it).
    init() {
        headers = HTTPHeaders()
    }

    /// A head from fields in the order they arrived (tests, fuzzing), finished.
    convenience init(_ fields: [(name: String, value: String)]) {
        self.init()
        for field in fields {
            if let pseudo = PseudoField(field.name) {
                set(pseudo, field.value)
            } else {
                add(name: field.name, value: field.value)
            }
        }
        finish()
    }

    /// The pseudo-header fields of a request (RFC 9113 §8.3.1).
    enum PseudoField {
        case method, path, authority, scheme, other

        /// Nil when `name` is not a pseudo-header field (does not start with a colon).
        init?(_ name: String) {
            guard name.utf8.first == UInt8(ascii: ":") else { return nil }
            switch name {
            case ":method": self = .method
            case ":path": self = .path
            case ":authority": self = .authority
            case ":scheme": self = .scheme
            default: self = .other
            }
        }
    }

    /// Takes a pseudo-header field. libnghttp2 passes each at most once, before the other fields, and none unknown
    /// (RFC 9113 §8.3); a repeated one here would replace the earlier value.
    func set(_ field: PseudoField, _ value: String) {
        switch field {
        case .method: method = value
        case .path: path = value
        case .authority: authority = value
        case .scheme: scheme = value
        case .other: break
        }
    }

    /// Takes a field that is not a pseudo-header field (names in lower case, as libnghttp2 passes them).
    func add(name: String, value: String) {
        if host == nil && name.utf8.count == 4 && name == "host" { host = value }
        // Room for a client's usual few fields at once.
        if headers.isEmpty { headers = HTTPHeaders(capacity: 8) }
        headers.add(name: name, value: value)
    }

    /// Once every field has arrived: `:authority` stands in for `Host` (RFC 9113 §8.3.1) when the client sent no
    /// `host` field (its syntax is checked when the request is built).
    func finish() {
        if host == nil, let authority { headers.add(name: "host", value: authority) }
    }

    /// The fields, pseudo-header fields first (`:method`, `:scheme`, `:path`, `:authority`), then the others in
    /// order.
    var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let method { fields.append((":method", method)) }
        if let scheme { fields.append((":scheme", scheme)) }
        if let path { fields.append((":path", path)) }
        if let authority { fields.append((":authority", authority)) }
        for field in headers where !(host == nil && field.name == "host") { fields.append(field) }
        return fields
    }
}
