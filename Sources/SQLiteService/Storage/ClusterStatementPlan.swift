import DqliteClient
import SQLiteEngine

/// A statement checked on this node's copy of the schema (``SchemaShadow``), ready for the leader: its text, its
/// values in the leader's positional order, and what the copy told about it.
struct ClusterStatementPlan {
    /// What a statement is, for the result fields the wire does not give exactly.
    enum Kind: Equatable {
        /// `INSERT` or `REPLACE`: changes, and the rowid it inserted.
        case insert
        /// `UPDATE`, `DELETE`, or a writing `WITH …`: changes, no rowid.
        case change
        /// `CREATE`, `DROP`, `ALTER`: applied to the copy of the schema too; no changes.
        case schema
        /// Anything else: no changes (the connection's count is an earlier statement's).
        case other
    }

    let sql: String
    /// One list of values per run: one for `params`, one per set for `params_batch`.
    let parameterSets: [[DqliteValue]]
    let isBatch: Bool
    let isReadOnly: Bool
    let kind: Kind
    /// The result columns' JSON (names and declared types, as on the local backend).
    let profile: StatementProfile

    /// Whether the statement runs in a transaction of its own when it is not in one: a `params_batch` that writes
    /// (all sets or none), a writing statement with rows (`RETURNING`, read and committed on one connection).
    var needsTransaction: Bool {
        !isReadOnly && (isBatch || profile.columnCount > 0)
    }

    /// Whether the statement is one read run once (rows, one set of values): what a pipelined batch of reads
    /// carries (``ClusterStorage/runReads(_:)``); anything else runs through ``ClusterStatementRunner``.
    var isPipelinable: Bool {
        isReadOnly && !isBatch && parameterSets.count == 1 && profile.columnCount > 0
    }

    /// Prepares `request` on `db`, applies the statement rules of the local backend and binds every parameter set
    /// there, so that a bad request fails with the local backend's error before anything is sent.
    init(_ request: StatementRequest, on db: Database, context: RequestContext) throws(APIError) {
        let statement: Statement
        do {
            statement = try db.cachedStatement(sql: request.sql)
        } catch {
            throw APIError(error, db: db)
        }
        defer { statement.reset() }
        try StatementExecutor.check(statement, context: context)
        var sets: [[DqliteValue]] = []
        if case .batch(let parameterSets) = request.parameters {
            for (index, set) in parameterSets.enumerated() {
                sets.append(try Self.bind(set, to: statement, db: db, setIndex: index))
            }
        } else if let set = request.parameters.singleSet {
            sets.append(try Self.bind(set, to: statement, db: db))
        }
        self.init(statement: statement, parameterSets: sets, isBatch: sets.count > 1 || request.isBatch)
    }

    /// A statement of a `/batch` script, already prepared on the copy by the script's iterator (no parameters).
    init(scriptStatement statement: Statement, context: RequestContext) throws(APIError) {
        try StatementExecutor.check(statement, context: context)
        self.init(statement: statement, parameterSets: [[]], isBatch: false)
    }

    private init(statement: Statement, parameterSets: [[DqliteValue]], isBatch: Bool) {
        self.sql = statement.sql
        self.parameterSets = parameterSets
        self.isBatch = isBatch
        self.isReadOnly = statement.isReadOnly
        self.profile = StatementProfile.of(statement)
        var scanner = SQLKeywordScanner(statement.sql)
        switch scanner.nextKeyword() {
        case "INSERT", "REPLACE": kind = .insert
        case "UPDATE", "DELETE": kind = .change
        case "WITH": kind = statement.isReadOnly ? .other : .change
        case "CREATE", "DROP", "ALTER": kind = .schema
        default: kind = .other
        }
    }

    /// Binds `set` on the copy (the engine's strict binding: the same `BIND_ERROR`s as the local backend) and
    /// returns its values in parameter order, as the wire binds them.
    private static func bind(
        _ set: StatementRequest.ParameterSet,
        to statement: Statement,
        db: Database,
        setIndex: Int? = nil
    ) throws(APIError) -> [DqliteValue] {
        let arguments = try set.arguments(setIndex: setIndex)
        do {
            try statement.bind(arguments)
        } catch {
            throw APIError(error, db: db)
        }
        switch set {
        case .positional(let values):
            return values.map(\.dqliteValue)
        case .named(let pairs):
            return statement.parameterNames.map { name in
                guard let name else { return .null }
                let bare = String(name.dropFirst())
                return pairs.first { $0.name == name || $0.name == bare }?.value.dqliteValue ?? .null
            }
        }
    }
}

extension StatementRequest {
    /// Whether the statement runs once per `params_batch` set.
    var isBatch: Bool {
        if case .batch = parameters { return true }
        return false
    }
}

extension ParameterValue {
    /// The value as the wire protocol carries it.
    var dqliteValue: DqliteValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .float(value)
        case .text(let value): .text(value)
        case .blob(let bytes): .blob(bytes)
        }
    }
}
