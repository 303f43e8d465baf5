import SQLiteEngine
import Synchronization

/// The SQL policy on the connections dqlite opens inside this process (cluster mode, issue #15).
///
/// In cluster mode only the leader runs statements, on SQLite connections its dqlite node opens itself (one per
/// client connection and database, with `sqlite3_open_v2` on the node's VFS `"dqlite-<n>"`): no ``Database`` and
/// no `prepareDatabase` hook exists for them. ``register(limits:)`` adds an ``AutoExtension`` that recognises
/// them by their VFS name and installs, before dqlite runs anything on them, what the service's own connections get:
///
/// - defensive mode on, trusted schema off, double-quoted string literals off, extension loading off;
/// - the limits of ``SQLiteService/prepareConnection(_:role:limits:)`` (``ServiceLimits/connectionLimits``);
/// - the authorizer rules of the writer (``SQLPolicy/denialReason(for:role:)``): a leader connection serves reads
///   and writes alike (those of a reader once it was made read-only). `BEGIN`, `COMMIT` and `ROLLBACK` stay allowed, as on the service's own connections (the
///   service refuses them per endpoint from the SQL text, before sending it): ``ClusterClient`` runs a
///   transaction's as statements on the leader connection;
/// - the function guards (``FunctionGuard``), and `load_extension` replaced by a stub that refuses.
///
/// dqlite's own set-up pragmas, and one `query_only` setting, pass before clients reach the connection; a
/// connection made read-only that way refuses every write when it is prepared (see
/// ``LeaderAuthorizerStateMachine``). A denial reaches the client as dqlite's failure response with SQLite's
/// message: `SQLITE_AUTH` "not authorized", or `SQLITE_ERROR` "not authorized to use function: NAME" (the reason
/// the service's own connections record stays in the leader's process).
///
/// Every other connection is left alone, the service's own ``Database`` objects included (they get the policy
/// from ``SQLiteService/prepareConnection(_:role:limits:)``).
public enum LeaderPolicy {
    /// The prefix of the VFS names dqlite 1.11 registers, one per node (`config__init`: `"dqlite-%u"`).
    static let vfsPrefix = "dqlite-"

    /// The limits for connections opened from now on; `nil` until the first registration.
    private static let limits = Mutex<ServiceLimits?>(nil)

    /// Installs the policy on every dqlite connection opened in this process from now on. Call it before the node
    /// starts; calling it again only replaces the limits for connections opened afterwards (dqlite's connections
    /// live as long as the client connection that opened them).
    ///
    /// - Throws: ``DatabaseError`` when SQLite refuses the registration (out of memory).
    public static func register(limits newLimits: ServiceLimits = ServiceLimits()) throws {
        let isFirst = limits.withLock { limits in
            defer { limits = newLimits }
            return limits == nil
        }
        if isFirst {
            try AutoExtension.add { db in try connectionOpened(db) }
        }
    }

    /// The auto-extension: installs the policy on `db` when it is dqlite's.
    static func connectionOpened(_ db: Database) throws {
        guard let vfs = db.vfsName, vfs.hasPrefix(vfsPrefix), let limits = limits.withLock({ $0 }) else { return }
        try install(on: db, limits: limits)
    }

    /// Installs the policy on a connection dqlite opened.
    ///
    /// - Throws: what SQLite answered when a setting could not be applied; the open then fails (fail closed).
    static func install(on db: Database, limits: ServiceLimits) throws {
        var configuration = Configuration()
        configuration.defensive = true
        configuration.trustedSchema = false
        configuration.doubleQuotedStringLiterals = false
        configuration.extensionLoading = false
        configuration.limits = limits.connectionLimits
        try db.applyConnectionOptions(configuration)

        let machine = LeaderAuthorizerStateMachine()
        db.setAuthorizer { context in
            switch machine.authorize(context) {
            case .allow:
                return .ok
            case .denyWrite:
                return .deny
            case .applyPolicy:
                let role: SQLPolicy.Role = machine.isReadOnly ? .reader : .writer
                return SQLPolicy.denialReason(for: context, role: role, allowsServerTables: true) == nil ? .ok : .deny
            }
        }
        try FunctionGuard.install(on: db, maxValueLength: limits.maxValueLength)
        // The stubs also keep `db`, whose authorizer box SQLite calls, alive until the connection closes: SQLite
        // releases a function's body then, and dqlite closes its connections itself.
        for argumentCount: Int32 in [1, 2] {
            try db.createFunction("load_extension", argumentCount: argumentCount, deterministic: false) { _ in
                withExtendedLifetime(db) {}
                throw DatabaseError(
                    kind: .sqlite,
                    extendedResultCode: .SQLITE_AUTH,
                    message: "load_extension() is not allowed"
                )
            }
        }
    }
}
