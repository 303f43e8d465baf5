/// What a token may do. Roles are ordered: each grants everything the one before it grants.
///
/// - `read`: the GET endpoints (`/schema`, `/schema/{table}`) and `POST /query`.
/// - `write`: adds `POST /update`, `/batch` and `/transaction`.
/// - `admin`: adds `/backup`, `/metrics` and the maintenance endpoints under `/admin/`.
///
/// `GET /health` needs no token at all, so that load balancers can probe it.
public enum TokenRole: String, Sendable, Hashable, CaseIterable, Comparable {
    case read
    case write
    case admin

    /// Whether a token with this role may use an endpoint that requires `required`.
    public func grants(_ required: TokenRole) -> Bool {
        self >= required
    }

    public static func < (lhs: TokenRole, rhs: TokenRole) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .admin: 2
        }
    }
}
