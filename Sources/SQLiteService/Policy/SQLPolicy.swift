import SQLiteEngine
import Synchronization

/// The SQL policy of the contract: what statements from the network may do.
///
/// Installed once per connection (changing an authorizer invalidates prepared
/// statements), from the pool's `prepareDatabase` hook. The writer and the
/// readers get different allow lists. A denial is remembered per connection so
/// the service can say *what* was denied: SQLite itself only says "not authorized".
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
enum SQLPolicy {
    /// Which connection the policy guards.
    enum Role: Sendable {
        case writer
        case reader
    }

    /// Pragmas any connection may run, read-only, with or without an argument
    /// (an argument here names a table or index, never a new setting).
    static let informationalPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
        "collation_list", "function_list", "module_list", "pragma_list", "compile_options",
    ]

    /// Pragmas that only report a value; allowed without an argument.
    static let readablePragmas: Set<String> = [
        "user_version", "application_id", "schema_version", "data_version", "page_count", "page_size",
        "freelist_count", "encoding", "foreign_keys", "journal_mode", "synchronous", "auto_vacuum",
        "max_page_count", "busy_timeout", "query_only",
    ]

    /// Functions no request may call.
    ///
    /// - `load_extension`: would load native code (extension loading is also off on every connection).
    /// - `fts3_tokenizer`: the system library is built with `SQLITE_ENABLE_FTS3_TOKENIZER`, so the two-argument
    ///   form registers a tokenizer from a client-supplied *pointer* (arbitrary code execution when an FTS3 table
    ///   uses it) and the one-argument form reveals a code address (defeating ASLR).
    ///   <https://www.sqlite.org/fts3.html#custom_application_defined_tokenizers>
    static let deniedFunctions: Set<String> = ["load_extension", "fts3_tokenizer"]

    /// Virtual tables no request may read or create.
    ///
    /// - `sqlite_stmt` (`SQLITE_ENABLE_STMTVTAB` is on): lists the connection's prepared statements, and pool
    ///   connections and their statement caches are shared by all clients, so it would show other clients' SQL.
    ///   <https://www.sqlite.org/stmt.html>
    static let deniedTables: Set<String> = ["sqlite_stmt"]

    /// Every pragma of SQLite 3.40 (pragma.h), to tell a pragma's table-valued form (`pragma_<name>`) from a table
    /// a client named so (which is read as usual).
    static let pragmaNames: Set<String> = [
        "analysis_limit", "application_id", "auto_vacuum", "automatic_index", "busy_timeout", "cache_size",
        "cache_spill", "case_sensitive_like", "cell_size_check", "checkpoint_fullfsync", "collation_list",
        "compile_options", "count_changes", "data_store_directory", "data_version", "database_list",
        "default_cache_size", "defer_foreign_keys", "empty_result_callbacks", "encoding", "foreign_key_check",
        "foreign_key_list", "foreign_keys", "freelist_count", "full_column_names", "fullfsync", "function_list",
        "hard_heap_limit", "ignore_check_constraints", "incremental_vacuum", "index_info", "index_list",
        "index_xinfo", "integrity_check", "journal_mode", "journal_size_limit", "legacy_alter_table",
        "legacy_file_format", "locking_mode", "max_page_count", "mmap_size", "module_list", "optimize", "page_count",
        "page_size", "parser_trace", "pragma_list", "query_only", "quick_check", "read_uncommitted",
        "recursive_triggers", "reverse_unordered_selects", "schema_version", "secure_delete", "short_column_names",
        "shrink_memory", "soft_heap_limit", "stats", "synchronous", "table_info", "table_list", "table_xinfo",
        "temp_store", "temp_store_directory", "threads", "trusted_schema", "user_version", "vdbe_addoptrace",
        "vdbe_debug", "vdbe_listing", "vdbe_trace", "wal_autocheckpoint", "wal_checkpoint", "writable_schema",
    ]

    /// Pragmas the writer may also set.
    static let writerSettablePragmas: Set<String> = ["user_version", "application_id"]

    /// Installs the authorizer for `role` on `db` and registers the state that
    /// records denials.
    static func install(on db: Database, role: Role) {
        let state = PolicyState()
        PolicyRegistry.shared.register(state, for: db)
        db.setAuthorizer { context in
            if let reason = denialReason(for: context, role: role, allowsServerTables: state.allowsServerTables) {
                state.recordDenial(reason)
                return .deny
            }
            return .ok
        }
    }

    /// The prefix of the tables the server keeps in the database for itself (the cluster's shared cursor key):
    /// clients' SQL cannot read, write, create or drop them, and `/schema` and `/tables` do not list them.
    static let serverTablePrefix = "_sqlited_"

    /// The reason `context` is denied for `role`, or nil when it is allowed. `allowsServerTables`: the server's own
    /// statements may use its tables (``serverTablePrefix``) and the reserved savepoint names (``SavepointNames``):
    /// on a cluster's leader, which only runs statements a node checked on its copy of the schema with the clients'
    /// policy, and the nodes' own (a node's group savepoints carry that node's random part, not the leader's).
    static func denialReason(
        for context: AuthorizerContext,
        role: Role,
        allowsServerTables: Bool = false
    ) -> String? {
        if !allowsServerTables, let table = serverTable(named: context) {
            return "\(table) is the server's own table"
        }
        switch context.action {
        case .attach:
            // VACUUM attaches its target internally, so this also refuses
            // VACUUM INTO (a client-chosen file) and VACUUM itself.
            if let file = context.arg1, !file.isEmpty {
                return "ATTACH and VACUUM INTO are not allowed"
            }
            return "ATTACH and VACUUM are not allowed"
        case .detach:
            return "DETACH is not allowed"
        case .createTempTable, .createTempIndex, .createTempTrigger, .createTempView:
            return "temporary tables, indexes, triggers and views are not allowed"
        case .createTable, .createIndex, .createTrigger, .createView, .createVTable:
            if context.arg3?.lowercased() == "temp" {
                return "temporary tables, indexes, triggers and views are not allowed"
            }
            if context.action == .createVTable, let module = context.arg2?.lowercased(), deniedTables.contains(module) {
                return "the \(module) virtual table is not allowed"
            }
            return nil
        case .function:
            if let name = context.arg2?.lowercased(), deniedFunctions.contains(name) {
                return "\(name)() is not allowed"
            }
            return nil
        case .read:
            guard let table = context.arg1?.lowercased() else { return nil }
            if deniedTables.contains(table) {
                return "reading \(table) is not allowed"
            }
            // A pragma's table-valued form (`SELECT * FROM pragma_database_list`) is decided as the pragma without
            // an argument, when the statement is prepared: SQLite itself asks about the PRAGMA only when the
            // statement runs (the virtual table prepares it in xFilter), which a cluster node's copy of the schema
            // never does, so the leader's bare "not authorized" would be the answer there (issue #23).
            if table.hasPrefix("pragma_"), case let name = String(table.dropFirst(7)), pragmaNames.contains(name) {
                return pragmaDenial(name: name, argument: nil, role: role)
            }
            return nil
        case .pragma:
            return pragmaDenial(name: context.arg1 ?? "", argument: context.arg2, role: role)
        case .savepoint:
            // arg1 is BEGIN, RELEASE or ROLLBACK; arg2 the name (group commit's savepoints are off limits).
            if !allowsServerTables, let name = context.arg2, SavepointNames.isDenied(name) {
                return "savepoint names starting with \(SavepointNames.reservedPrefix) are reserved"
            }
            return nil
        default:
            return nil
        }
    }

    /// The text that starts every server statement on the local connections: a comment with 128 random bits of
    /// this process's, never sent anywhere, so that the statement cache (keyed by text) never lends a statement the
    /// authorizer let through for the server to a client sending the same SQL.
    static let serverStatementTag: String = {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
        return "/* sqlited server \(random) */ "
    }()

    /// Runs `body` (which prepares one of the server's own statements on `db`) with the server's tables allowed on
    /// `db`: the authorizer decides when a statement is prepared (and prepared again after a schema change, so the
    /// statement also runs inside `body`), so the statement keeps the permission and nothing prepared afterwards
    /// does. A cached server statement is cached under ``serverStatementTag``.
    static func asServer<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        let state = PolicyRegistry.shared.state(for: db)
        state?.setAllowsServerTables(true)
        defer { state?.setAllowsServerTables(false) }
        return try body()
    }

    /// Whether `name` is one of the server's own tables (or of their indexes and triggers).
    static func isServerTable(_ name: String) -> Bool {
        name.lowercased().hasPrefix(serverTablePrefix)
    }

    /// The server's table an action names (its table argument starts with ``serverTablePrefix``), if any.
    private static func serverTable(named context: AuthorizerContext) -> String? {
        let table: String?
        switch context.action {
        case .read, .insert, .update, .delete, .createTable, .dropTable, .analyze: table = context.arg1
        case .createIndex, .createTrigger, .dropIndex, .dropTrigger, .alterTable: table = context.arg2
        default: table = nil
        }
        guard let table, isServerTable(table) else { return nil }
        return table
    }

    /// Whether `error` is SQLite's report of a function the authorizer denied: unlike other denials it comes as
    /// `SQLITE_ERROR` "not authorized to use function: NAME" (the check runs while names are resolved), so the
    /// service has to recognise it to answer 403 `SQLITE_AUTH` like every other denial.
    static func isFunctionDenial(_ error: DatabaseError) -> Bool {
        error.extendedResultCode == .SQLITE_ERROR && error.message.hasPrefix("not authorized to use function")
    }

    private static func pragmaDenial(name rawName: String, argument: String?, role: Role) -> String? {
        let name = rawName.lowercased()
        if informationalPragmas.contains(name) { return nil }
        if readablePragmas.contains(name) {
            if argument == nil { return nil }
            if role == .writer, writerSettablePragmas.contains(name) { return nil }
            return "PRAGMA \(name) may be read but not set"
        }
        return "PRAGMA \(name) is not allowed"
    }
}

/// Per-connection record of the last denial, read by the service when a
/// statement fails with `SQLITE_AUTH`.
final class PolicyState: Sendable {
    private let lastDenial = Mutex<String?>(nil)
    private let serverStatements = Atomic<Bool>(false)

    /// Whether the statement being prepared is the server's own (``SQLPolicy/asServer(_:_:)``).
    var allowsServerTables: Bool {
        serverStatements.load(ordering: .relaxed)
    }

    /// Sets ``allowsServerTables`` (on the connection's thread, around one statement's preparation).
    func setAllowsServerTables(_ allowed: Bool) {
        serverStatements.store(allowed, ordering: .relaxed)
    }

    func recordDenial(_ reason: String) {
        lastDenial.withLock { $0 = reason }
    }

    /// Returns and clears the last denial.
    func takeDenial() -> String? {
        lastDenial.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

/// Finds a connection's `PolicyState`. Connections live as long as the pool,
/// so entries are removed only when the pool closes.
final class PolicyRegistry: Sendable {
    static let shared = PolicyRegistry()
    private let states = Mutex<[ObjectIdentifier: PolicyState]>([:])

    func register(_ state: PolicyState, for db: Database) {
        states.withLock { $0[ObjectIdentifier(db)] = state }
    }

    func state(for db: Database) -> PolicyState? {
        states.withLock { $0[ObjectIdentifier(db)] }
    }

    func unregister(_ db: Database) {
        states.withLock { $0[ObjectIdentifier(db)] = nil }
    }
}
