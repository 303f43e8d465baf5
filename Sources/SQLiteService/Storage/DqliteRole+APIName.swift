import DqliteClient

extension DqliteRole {
    /// The role's name in `GET /cluster` and the metrics: `voter`, `standby` or `spare`.
    var apiName: String {
        switch self {
        case .voter: "voter"
        case .standBy: "standby"
        case .spare: "spare"
        }
    }
}
