import DqliteClient
import DqliteCluster
import Foundation
import SQLiteEngine

/// A copy of the cluster database's schema in an in-memory SQLite database of this process, on which the cluster
/// backend prepares every statement before the leader runs it.
///
/// The wire protocol answers a statement with its rows or its changes, nothing else: not whether it is read-only,
/// the names of its parameters, the declared types of its columns, nor where the first statement of a text ends.
/// Prepared here, on the same schema with the same SQL policy and limits as the local backend's connections, a
/// statement gets the local backend's checks and errors (`MULTIPLE_STATEMENTS`, `TRANSACTION_CONTROL`,
/// `READONLY_STATEMENT`, `BIND_ERROR`, `SQLITE_AUTH`, syntax errors, unknown tables and columns), its named
/// parameters are put in the leader's positional order, and its result has the same `columns` and `types`.
///
/// The copy follows the leader's `PRAGMA schema_version`, read when a request other than `/query` takes the copy, or
/// when a write group first uses it, once its `BEGIN IMMEDIATE` holds the leader's write lock
/// (``withHeldSchema(refreshingFrom:_:)``; one more round trip), and is rebuilt from the leader's `sqlite_master`
/// when it changed. `/query` takes the copy as last checked (``withSchema(refreshingFrom:checkingVersion:_:)`` with
/// `false`: one round trip in all) and checks it only when the answer shows it out of date (see ``ClusterStorage``'s
/// `query`); a read with a `*` sends the version check in the same write as the statement. The write copy marks the
/// read copy for a check (``invalidate()``) whenever it sees the schema change. A request's own DDL is applied to the
/// copy as it runs, so that its later statements see it (inside `/transaction` the leader's other connections do
/// not see it before the COMMIT). A schema changed through another node between the version check and a
/// statement outside a group is seen by the next request only; the leader's own checks still apply.
///
/// `@unchecked Sendable`: `lock` guards `database` and `version`; a request holds it while it uses the copy.
final class SchemaShadow: @unchecked Sendable {
    private let lock = NSLock()
    private var database: Database?
    /// The leader's schema version the copy was built from; nil forces a rebuild.
    private var version: Int64?
    private let role: SQLiteService.ConnectionRole
    private let limits: ServiceLimits
    /// Another copy to mark for a check whenever this one sees the schema change (the read copy, for the write one).
    private let dependent: SchemaShadow?

    /// A copy whose connection gets the policy and limits of the local backend's connections of `role`.
    init(role: SQLiteService.ConnectionRole, limits: ServiceLimits, dependent: SchemaShadow? = nil) {
        self.role = role
        self.limits = limits
        self.dependent = dependent
    }

    /// Makes the next ``withSchema(refreshingFrom:checkingVersion:_:)`` check the leader's schema version.
    func invalidate() {
        lock.lock()
        defer { lock.unlock() }
        version = nil
    }

    /// Runs `body` on the copy, brought up to date with the leader first (unless `checkingVersion` is false and the
    /// copy was checked before); no other request uses the copy meanwhile.
    func withSchema<T>(
        refreshingFrom client: ClusterClient,
        checkingVersion: Bool = true,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        try withSchema(refreshingFrom: client, checkingVersion: checkingVersion) { (db, _) throws(APIError) in
            try body(db)
        }
    }

    /// ``withSchema(refreshingFrom:checkingVersion:_:)`` whose `body` is also given the leader's schema version
    /// the copy was built from: whoever runs a statement prepared on the copy can check that version against the
    /// leader's in the same round trip (a `*` read, see ``ClusterStorage``'s `query`).
    func withSchema<T>(
        refreshingFrom client: ClusterClient,
        checkingVersion: Bool = true,
        _ body: (Database, Int64?) throws(APIError) -> T
    ) throws(APIError) -> T {
        try withHeldSchema(refreshingFrom: client) { (held) throws(APIError) in
            let db = try held.database(checkingVersion: checkingVersion)
            return try body(db, held.version)
        }
    }

    /// Holds the copy for `body` (no other request uses it meanwhile) without checking it yet: the check against
    /// the leader's schema version comes with the first ``HeldSchema/database(checkingVersion:)``. A write group
    /// holds the copy from before it takes its requests and checks it once its `BEGIN IMMEDIATE` holds the leader's
    /// write lock: no schema change can come between the check and the group's statements then, and every request
    /// of the group arrived before the check (a check made before a request arrived could miss a table another
    /// node created just before the request was sent).
    func withHeldSchema<T>(
        refreshingFrom client: ClusterClient,
        _ body: (HeldSchema) throws(APIError) -> T
    ) throws(APIError) -> T {
        lock.lock()
        defer { lock.unlock() }
        let held = HeldSchema(shadow: self, client: client)
        // DDL the request applied to the copy may not be the leader's in the end (a `ROLLBACK TO` inside
        // `/transaction` undid it there; the leader's schema version does not move then): a copy changed by a
        // request is rebuilt before the next one.
        defer {
            if let (db, versionBefore) = held.handedOut, (try? db.int64(sql: "PRAGMA schema_version")) != versionBefore
            {
                version = nil
                dependent?.invalidate()
            }
        }
        return try body(held)
    }

    /// The copy held by one ``SchemaShadow/withHeldSchema(refreshingFrom:_:)``, checked when first asked for.
    ///
    /// Not `Sendable`: used by the holder's thread only, while it holds the copy's lock.
    final class HeldSchema {
        private let shadow: SchemaShadow
        private let client: ClusterClient
        /// The copy handed out, and its own schema version then.
        fileprivate private(set) var handedOut: (db: Database, versionBefore: Int64?)?

        fileprivate init(shadow: SchemaShadow, client: ClusterClient) {
            self.shadow = shadow
            self.client = client
        }

        /// The copy: on the first call brought up to date with the leader (unless `checkingVersion` is false and the
        /// copy was checked before), the same copy on later calls.
        func database(checkingVersion: Bool = true) throws(APIError) -> Database {
            if let handedOut { return handedOut.db }
            let db: Database
            if !checkingVersion, let database = shadow.database, shadow.version != nil {
                db = database
            } else {
                db = try shadow.current(client)
            }
            handedOut = (db, try? db.int64(sql: "PRAGMA schema_version"))
            return db
        }

        /// The leader's schema version the copy was built from (nil: not known; the copy is rebuilt next time).
        var version: Int64? { shadow.version }
    }

    private func current(_ client: ClusterClient) throws(APIError) -> Database {
        let leaderVersion: Int64
        do {
            // Kept prepared on the leader connection, as the statements are: a read with a `*` and every write
            // group ask it.
            let rows = try client.query("PRAGMA schema_version", prepared: true)
            guard case .integer(let value)? = rows.rows.first?.first else {
                throw APIError.internal("the leader did not report its schema version")
            }
            leaderVersion = value
        } catch let error as ClusterError {
            throw APIError(cluster: error, isWrite: false)
        } catch {
            throw APIError(error, db: nil)
        }
        if let database, version == leaderVersion {
            return database
        }
        let fresh = try build(client)
        if database != nil { dependent?.invalidate() }
        database = fresh
        version = leaderVersion
        return fresh
    }

    /// A new copy: the leader's objects in the order the leader stores them (so that `GET /schema` lists them in
    /// the same order), and those that failed (an object created before one it names) once more at the end.
    private func build(_ client: ClusterClient) throws(APIError) -> Database {
        let objects: DqliteRows
        do {
            objects = try client.query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        } catch {
            throw APIError(cluster: error, isWrite: false)
        }
        var configuration = Configuration()
        let role = self.role
        let limits = self.limits
        configuration.prepareDatabase = { db in SQLiteService.prepareConnection(db, role: role, limits: limits) }
        let db: Database
        do {
            db = try Database(path: ":memory:", configuration: configuration)
        } catch {
            throw APIError(error, db: nil)
        }
        var failed: [String] = []
        for object in objects.rows {
            guard object.count == 2, case .text(let name) = object[0], case .text(let sql) = object[1],
                !name.lowercased().hasPrefix("sqlite_")
            else { continue }
            do {
                try Self.create(sql, named: name, on: db)
            } catch {
                failed.append(sql)
            }
        }
        // An object the copy still cannot create (a virtual table's own tables, made by the virtual table already; a
        // module this process lacks) is left out: its statements then fail here as on a database without it.
        for sql in failed {
            try? db.execute(sql: sql)
        }
        return db
    }

    /// Creates one of the leader's objects on the copy. The server's own tables (``SQLPolicy/serverTablePrefix``)
    /// are created as the server (the policy refuses them to clients), never through the statement cache, so that
    /// a client's statement naming them is refused here with the policy's 403, as on the local storage.
    private static func create(_ sql: String, named name: String, on db: Database) throws {
        guard SQLPolicy.isServerTable(name) else {
            try db.execute(sql: sql)
            return
        }
        try SQLPolicy.asServer(db) { try db.makeStatement(sql: sql).run() }
    }
}
