import SQLiteEngine
import Testing

@testable import SQLiteService

/// The phases of a dqlite leader connection's authorizer, without I/O: dqlite's set-up pragmas pass once and only
/// before anything else, one `query_only` setting passes as the first statement after them, then the policy decides.
@Suite struct LeaderAuthorizerStateMachineTests {
    static func pragma(_ name: String, _ value: String?) -> AuthorizerContext {
        AuthorizerContext(action: .pragma, arg1: name, arg2: value, arg3: nil, arg4: nil)
    }

    static let select = AuthorizerContext(action: .select, arg1: nil, arg2: nil, arg3: nil, arg4: nil)

    /// dqlite 1.11's leader set-up, as its authorizer calls were observed.
    static let dqliteSetUp = [
        pragma("page_size", "4096"), pragma("synchronous", "OFF"), pragma("journal_mode", "WAL"),
        pragma("wal_autocheckpoint", "0"), pragma("foreign_keys", "1"),
    ]

    @Test func dqliteSetUp_passes_thenQueryOnlyOnce_thenThePolicy() {
        let machine = LeaderAuthorizerStateMachine()
        for context in Self.dqliteSetUp {
            #expect(machine.authorize(context) == .allow)
        }
        #expect(machine.phase == .sessionSetUp)
        #expect(machine.authorize(Self.pragma("query_only", "1")) == .allow)
        #expect(machine.phase == .serving)
        #expect(machine.authorize(Self.pragma("query_only", "0")) == .applyPolicy)
        #expect(machine.authorize(Self.pragma("synchronous", "OFF")) == .applyPolicy)
    }

    @Test func readOnlySession_deniesWrites_beforeThePolicy() {
        let machine = LeaderAuthorizerStateMachine()
        for context in Self.dqliteSetUp {
            _ = machine.authorize(context)
        }
        #expect(machine.authorize(Self.pragma("query_only", "ON")) == .allow)
        #expect(machine.isReadOnly)
        for action: AuthorizerAction in [.insert, .update, .delete, .createTable, .dropTable, .alterTable] {
            let context = AuthorizerContext(action: action, arg1: "t", arg2: nil, arg3: "main", arg4: nil)
            #expect(machine.authorize(context) == .denyWrite, "\(action)")
        }
        #expect(machine.authorize(Self.select) == .applyPolicy)
        // SQLite authorizes an UPDATE of the schema table, never run, when `pragma_table_info('t')` first declares
        // its virtual table on the connection: left to the policy (defensive mode refuses real schema writes).
        let declaration = AuthorizerContext(
            action: .update,
            arg1: "sqlite_master",
            arg2: "sql",
            arg3: "main",
            arg4: nil
        )
        #expect(machine.authorize(declaration) == .applyPolicy)

        let writable = LeaderAuthorizerStateMachine()
        for context in Self.dqliteSetUp {
            _ = writable.authorize(context)
        }
        #expect(writable.authorize(Self.pragma("query_only", "0")) == .allow)
        #expect(!writable.isReadOnly)
        let insert = AuthorizerContext(action: .insert, arg1: "t", arg2: nil, arg3: "main", arg4: nil)
        #expect(writable.authorize(insert) == .applyPolicy)
    }

    /// A read-only session still lets through what SQLite asks while it sets up an eponymous virtual table
    /// (`SELECT … FROM pragma_table_info('t')`, as `sqlite3 .auth ON` shows): UPDATEs of `sqlite_master`'s columns
    /// that write nothing; an UPDATE of any other table stays denied.
    @Test func readOnlySession_letsEponymousTablesSetUp() {
        let machine = LeaderAuthorizerStateMachine()
        for context in Self.dqliteSetUp {
            _ = machine.authorize(context)
        }
        _ = machine.authorize(Self.pragma("query_only", "1"))
        for column in ["type", "name", "tbl_name", "rootpage", "sql"] {
            let context = AuthorizerContext(
                action: .update,
                arg1: "sqlite_master",
                arg2: column,
                arg3: "main",
                arg4: nil
            )
            #expect(machine.authorize(context) == .applyPolicy)
        }
        let other = AuthorizerContext(action: .update, arg1: "t", arg2: "x", arg3: "main", arg4: nil)
        #expect(machine.authorize(other) == .denyWrite)
    }

    @Test func anotherStatement_endsTheSetUp_forGood() {
        let machine = LeaderAuthorizerStateMachine()
        #expect(machine.authorize(Self.dqliteSetUp[0]) == .allow)
        #expect(machine.authorize(Self.select) == .applyPolicy)
        #expect(machine.phase == .serving)
        #expect(machine.authorize(Self.dqliteSetUp[1]) == .applyPolicy)
        #expect(machine.authorize(Self.pragma("query_only", "1")) == .applyPolicy)
    }

    @Test func setUpPragmas_passOnlyWithDqlitesValues_andOnce() {
        let machine = LeaderAuthorizerStateMachine()
        #expect(machine.authorize(Self.pragma("synchronous", "OFF")) == .allow)
        // A second synchronous is not part of dqlite's set-up: it ends the phase.
        #expect(machine.authorize(Self.pragma("synchronous", "OFF")) == .applyPolicy)

        let other = LeaderAuthorizerStateMachine()
        #expect(other.authorize(Self.pragma("journal_mode", "DELETE")) == .applyPolicy)
        #expect(LeaderAuthorizerStateMachine().authorize(Self.pragma("page_size", "4096; x")) == .applyPolicy)
        #expect(LeaderAuthorizerStateMachine().authorize(Self.pragma("page_size", nil)) == .applyPolicy)
    }

    @Test func sessionSetUp_takesOnlyABooleanQueryOnly() {
        let machine = LeaderAuthorizerStateMachine()
        for context in Self.dqliteSetUp {
            _ = machine.authorize(context)
        }
        #expect(machine.authorize(Self.pragma("query_only", "2")) == .applyPolicy)
        #expect(machine.phase == .serving)
    }

    /// The limits of a leader connection are those the service gives its own connections.
    @Test func connectionLimits_matchTheServiceConnections() throws {
        var limits = ServiceLimits()
        limits.maxSQLLength = 12_345
        limits.maxParameters = 99
        let service = try Database(path: ":memory:")
        SQLiteService.prepareConnection(service, role: .writer, limits: limits)
        var configuration = Configuration()
        configuration.limits = limits.connectionLimits
        let leader = try Database(path: ":memory:")
        try leader.applyConnectionOptions(configuration)
        for limit in Limit.allCases {
            #expect(leader.limit(limit) == service.limit(limit), "\(limit)")
        }
    }
}
