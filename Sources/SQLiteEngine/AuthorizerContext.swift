internal import CSQLite

/// What a statement being prepared wants to do, as reported to an authorizer.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_alter_table.html>
public struct AuthorizerContext: Sendable, Hashable {
    /// The action code.
    public var action: AuthorizerAction
    /// The action's first and second arguments (for example table and column for `.read`).
    public var arg1: String?
    public var arg2: String?
    /// The database name (`main`, `temp`, ...), when relevant.
    public var arg3: String?
    /// The innermost trigger or view responsible for the access, or `nil` for top-level SQL.
    public var arg4: String?

    public init(action: AuthorizerAction, arg1: String?, arg2: String?, arg3: String?, arg4: String?) {
        self.action = action
        self.arg1 = arg1
        self.arg2 = arg2
        self.arg3 = arg3
        self.arg4 = arg4
    }
}

/// An authorizer action code (`SQLITE_CREATE_TABLE`, `SQLITE_PRAGMA`, ...).
public struct AuthorizerAction: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let copy = AuthorizerAction(rawValue: SQLITE_COPY)
    public static let createIndex = AuthorizerAction(rawValue: SQLITE_CREATE_INDEX)
    public static let createTable = AuthorizerAction(rawValue: SQLITE_CREATE_TABLE)
    public static let createTempIndex = AuthorizerAction(rawValue: SQLITE_CREATE_TEMP_INDEX)
    public static let createTempTable = AuthorizerAction(rawValue: SQLITE_CREATE_TEMP_TABLE)
    public static let createTempTrigger = AuthorizerAction(rawValue: SQLITE_CREATE_TEMP_TRIGGER)
    public static let createTempView = AuthorizerAction(rawValue: SQLITE_CREATE_TEMP_VIEW)
    public static let createTrigger = AuthorizerAction(rawValue: SQLITE_CREATE_TRIGGER)
    public static let createView = AuthorizerAction(rawValue: SQLITE_CREATE_VIEW)
    public static let delete = AuthorizerAction(rawValue: SQLITE_DELETE)
    public static let dropIndex = AuthorizerAction(rawValue: SQLITE_DROP_INDEX)
    public static let dropTable = AuthorizerAction(rawValue: SQLITE_DROP_TABLE)
    public static let dropTempIndex = AuthorizerAction(rawValue: SQLITE_DROP_TEMP_INDEX)
    public static let dropTempTable = AuthorizerAction(rawValue: SQLITE_DROP_TEMP_TABLE)
    public static let dropTempTrigger = AuthorizerAction(rawValue: SQLITE_DROP_TEMP_TRIGGER)
    public static let dropTempView = AuthorizerAction(rawValue: SQLITE_DROP_TEMP_VIEW)
    public static let dropTrigger = AuthorizerAction(rawValue: SQLITE_DROP_TRIGGER)
    public static let dropView = AuthorizerAction(rawValue: SQLITE_DROP_VIEW)
    public static let insert = AuthorizerAction(rawValue: SQLITE_INSERT)
    public static let pragma = AuthorizerAction(rawValue: SQLITE_PRAGMA)
    public static let read = AuthorizerAction(rawValue: SQLITE_READ)
    public static let select = AuthorizerAction(rawValue: SQLITE_SELECT)
    public static let transaction = AuthorizerAction(rawValue: SQLITE_TRANSACTION)
    public static let update = AuthorizerAction(rawValue: SQLITE_UPDATE)
    public static let attach = AuthorizerAction(rawValue: SQLITE_ATTACH)
    public static let detach = AuthorizerAction(rawValue: SQLITE_DETACH)
    public static let alterTable = AuthorizerAction(rawValue: SQLITE_ALTER_TABLE)
    public static let reindex = AuthorizerAction(rawValue: SQLITE_REINDEX)
    public static let analyze = AuthorizerAction(rawValue: SQLITE_ANALYZE)
    public static let createVTable = AuthorizerAction(rawValue: SQLITE_CREATE_VTABLE)
    public static let dropVTable = AuthorizerAction(rawValue: SQLITE_DROP_VTABLE)
    public static let function = AuthorizerAction(rawValue: SQLITE_FUNCTION)
    public static let savepoint = AuthorizerAction(rawValue: SQLITE_SAVEPOINT)
    public static let recursive = AuthorizerAction(rawValue: SQLITE_RECURSIVE)

    private static let names: [Int32: String] = [
        SQLITE_COPY: "COPY", SQLITE_CREATE_INDEX: "CREATE_INDEX", SQLITE_CREATE_TABLE: "CREATE_TABLE",
        SQLITE_CREATE_TEMP_INDEX: "CREATE_TEMP_INDEX", SQLITE_CREATE_TEMP_TABLE: "CREATE_TEMP_TABLE",
        SQLITE_CREATE_TEMP_TRIGGER: "CREATE_TEMP_TRIGGER", SQLITE_CREATE_TEMP_VIEW: "CREATE_TEMP_VIEW",
        SQLITE_CREATE_TRIGGER: "CREATE_TRIGGER", SQLITE_CREATE_VIEW: "CREATE_VIEW", SQLITE_DELETE: "DELETE",
        SQLITE_DROP_INDEX: "DROP_INDEX", SQLITE_DROP_TABLE: "DROP_TABLE", SQLITE_DROP_TEMP_INDEX: "DROP_TEMP_INDEX",
        SQLITE_DROP_TEMP_TABLE: "DROP_TEMP_TABLE", SQLITE_DROP_TEMP_TRIGGER: "DROP_TEMP_TRIGGER",
        SQLITE_DROP_TEMP_VIEW: "DROP_TEMP_VIEW", SQLITE_DROP_TRIGGER: "DROP_TRIGGER", SQLITE_DROP_VIEW: "DROP_VIEW",
        SQLITE_INSERT: "INSERT", SQLITE_PRAGMA: "PRAGMA", SQLITE_READ: "READ", SQLITE_SELECT: "SELECT",
        SQLITE_TRANSACTION: "TRANSACTION", SQLITE_UPDATE: "UPDATE", SQLITE_ATTACH: "ATTACH", SQLITE_DETACH: "DETACH",
        SQLITE_ALTER_TABLE: "ALTER_TABLE", SQLITE_REINDEX: "REINDEX", SQLITE_ANALYZE: "ANALYZE",
        SQLITE_CREATE_VTABLE: "CREATE_VTABLE", SQLITE_DROP_VTABLE: "DROP_VTABLE", SQLITE_FUNCTION: "FUNCTION",
        SQLITE_SAVEPOINT: "SAVEPOINT", SQLITE_RECURSIVE: "RECURSIVE",
    ]

    /// The code's C name without the `SQLITE_` prefix, such as `CREATE_TABLE`.
    public var description: String {
        Self.names[rawValue] ?? "ACTION_\(rawValue)"
    }
}

/// An authorizer's answer.
public enum AuthorizerDecision: Sendable, Hashable {
    /// Allow the action.
    case ok
    /// Refuse: preparing the statement fails with `SQLITE_AUTH`.
    case deny
    /// Allow the statement but skip the action (a column read gives NULL, a DELETE ... is silently skipped).
    case ignore

    var sqliteValue: Int32 {
        switch self {
        case .ok: SQLITE_OK
        case .deny: SQLITE_DENY
        case .ignore: SQLITE_IGNORE
        }
    }
}
