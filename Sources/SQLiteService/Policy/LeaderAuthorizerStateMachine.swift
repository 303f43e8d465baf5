import SQLiteEngine

/// Which statements a dqlite leader connection runs before clients reach it, told apart in its authorizer.
///
/// dqlite 1.11 opens a leader connection when a client sends OPEN and, before answering, runs its own set-up on it
/// (`openConnection` in `src/leader.c`): `PRAGMA page_size=<n>`, `synchronous=OFF`, `journal_mode=WAL`,
/// `wal_autocheckpoint=0`, `foreign_keys=1` (its follower connection, which never serves clients, runs the first
/// three). The SQL policy refuses all of these to clients. The connection therefore starts in `dqliteSetUp`, where
/// each of those exact pragmas, with exactly that value, passes once; the first action of any other statement, or
/// the last of the five, ends the phase for good. No client statement can come earlier: the client has no database
/// id to send one with until OPEN is answered, after the set-up. Were a later dqlite to skip one of them, the phase
/// would stay open until the client's first statement, which could then only repeat a setting already in force.
///
/// Then comes `sessionSetUp`: the first statement may set `query_only` (to any boolean), once. That is how a
/// `ClusterClient` with `queryOnly` set makes a connection read-only, or seals it writable, before any caller's
/// statement; afterwards `query_only` may only be read, so a client cannot lift the read-only rule of a connection
/// nor impose it on a pooled writer's. Everything else is decided by the SQL policy (`serving`), and on a
/// connection made read-only every action that writes is denied as well, when the statement is prepared (and the
/// policy applies its reader rules there: no pragma may be set).
///
/// That denial comes before `query_only`'s own `SQLITE_READONLY` (which stays, underneath) because of how dqlite
/// 1.11 answers QUERY: a statement without result columns (`DELETE`) is refused unrun with `SQLITE_ERROR` "not an
/// error", while one with columns (`INSERT … RETURNING`) starts and fails at its first step with
/// `SQLITE_READONLY`, its failure sent after the column header dqlite had begun. Denied at prepare, every write
/// fails alike, with `SQLITE_AUTH`, whether it comes as a query or an exec.
///
/// Confined to its connection's thread, like the authorizer that drives it.
final class LeaderAuthorizerStateMachine {
    enum Phase: Equatable {
        /// dqlite's own pragmas that have not run yet, as lower-cased name and exact value (`nil`: decimal digits).
        case dqliteSetUp(remaining: [ExpectedPragma])
        case sessionSetUp
        case serving
    }

    /// A pragma of dqlite's set-up.
    struct ExpectedPragma: Equatable {
        var name: String
        /// The exact argument text; `nil` for any decimal number (the page size comes from the node's options).
        var value: String?

        func matches(name other: String, value argument: String?) -> Bool {
            guard other.lowercased() == name, let argument else { return false }
            guard let value else { return !argument.isEmpty && argument.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
            return argument == value
        }
    }

    /// What the authorizer does with an action.
    enum Action: Equatable {
        /// Allowed as part of a set-up phase.
        case allow
        /// A write on a connection made read-only.
        case denyWrite
        /// Decided by the SQL policy.
        case applyPolicy
    }

    /// The actions of statements that write (or would, on a temporary schema the policy refuses anyway).
    static let writeActions: Set<AuthorizerAction> = [
        .insert, .update, .delete, .createTable, .createIndex, .createTrigger, .createView, .createVTable,
        .createTempTable, .createTempIndex, .createTempTrigger, .createTempView, .dropTable, .dropIndex,
        .dropTrigger, .dropView, .dropVTable, .dropTempTable, .dropTempIndex, .dropTempTrigger, .dropTempView,
        .alterTable, .reindex, .analyze,
    ]

    /// Whether `context` is an `SQLITE_UPDATE` of `sqlite_master`, which SQLite asks (for its `type`, `name`,
    /// `tbl_name`, `rootpage` and `sql` columns) while it prepares a table-valued pragma such as
    /// `SELECT … FROM pragma_table_info('t')` (measured): nothing is written (the same read through a writable
    /// connection leaves the node serving), and nothing could be: SQLite refuses any change to `sqlite_master`
    /// while `writable_schema` is off (the policy denies setting it; defensive mode is on), and `query_only` backs
    /// the read-only connection. Denying it made such reads fail there with `SQLITE_ERROR` "not authorized",
    /// where the local backend's readers answer them.
    static func isSchemaTableCheck(_ context: AuthorizerContext) -> Bool {
        context.action == .update && context.arg1?.lowercased() == "sqlite_master"
    }

    /// The spellings of a true boolean pragma value.
    static let trueValues: Set<String> = ["1", "on", "true", "yes"]

    /// dqlite 1.11's set-up of a leader connection (`src/leader.c`, `openConnection`).
    static let dqlitePragmas: [ExpectedPragma] = [
        ExpectedPragma(name: "page_size", value: nil),
        ExpectedPragma(name: "synchronous", value: "OFF"),
        ExpectedPragma(name: "journal_mode", value: "WAL"),
        ExpectedPragma(name: "wal_autocheckpoint", value: "0"),
        ExpectedPragma(name: "foreign_keys", value: "1"),
    ]

    /// The spellings of a boolean pragma value SQLite accepts (`sqlite3GetBoolean`).
    static let booleanValues: Set<String> = ["0", "1", "on", "off", "true", "false", "yes", "no"]

    private(set) var phase: Phase = .dqliteSetUp(remaining: dqlitePragmas)
    /// Whether the session set-up made the connection read-only.
    private(set) var isReadOnly = false

    /// Decides `context`, advancing the phase.
    func authorize(_ context: AuthorizerContext) -> Action {
        if case .dqliteSetUp(var remaining) = phase {
            if context.action == .pragma,
                let index = remaining.firstIndex(where: { $0.matches(name: context.arg1 ?? "", value: context.arg2) })
            {
                remaining.remove(at: index)
                phase = remaining.isEmpty ? .sessionSetUp : .dqliteSetUp(remaining: remaining)
                return .allow
            }
            phase = .sessionSetUp
        }
        if phase == .sessionSetUp {
            phase = .serving
            if context.action == .pragma, context.arg1?.lowercased() == "query_only",
                let value = context.arg2?.lowercased(), Self.booleanValues.contains(value)
            {
                isReadOnly = Self.trueValues.contains(value)
                return .allow
            }
        }
        if isReadOnly, Self.writeActions.contains(context.action), !Self.isSchemaTableCheck(context) {
            return .denyWrite
        }
        return .applyPolicy
    }
}
