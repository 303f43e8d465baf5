internal import CSQLite

/// One prepared SQL statement (`sqlite3_stmt`).
///
/// Not `Sendable`: it belongs to its ``Database``'s thread. The statement is reset as soon as it reaches
/// `SQLITE_DONE` or fails, so that it never holds a read snapshot or a lock after use. After the database closes,
/// every method fails with ``DatabaseError/Kind-swift.enum/misuse`` (row readers return NULL/0).
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
public final class Statement {
    /// The statement's SQL text, as SQLite parsed it (without the text that followed it in a script).
    public let sql: String
    let connection: Connection
    let handle: OpaquePointer
    /// Whether SQLite's `sqlite3_stmt_readonly` says the statement does not write.
    public let isReadOnly: Bool
    /// The number of parameters (`sqlite3_bind_parameter_count`: the largest parameter index).
    public let parameterCount: Int

    /// Set when the statement is lent to a cursor, so that the cache never lends it twice.
    var isCheckedOut = false
    /// Set when a bind or step failed: the cache drops the statement instead of lending it again.
    var needsEviction = false

    /// Whether a run is in progress: stepped at least once since the last reset, and not yet done.
    private(set) var isExecuting = false
    private var totalChangesBefore: Int64 = 0
    private var lastInsertRowIDBefore: Int64 = 0
    private var finishedChanges = 0
    private var finishedInsertedRowID: Int64?
    /// The parameter names, built once on first use (they cannot change: a re-prepare keeps the SQL text).
    lazy var parameterTable = ParameterTable(
        names: (0..<parameterCount).map { index in
            sqlite3_bind_parameter_name(handle, Int32(index + 1)).map { String(cString: $0) }
        }
    )
    /// For named binding: the parameter index matched by each key of the last call, in the dictionary's iteration
    /// order, tried first by the next call (a caller building the same dictionary each time sees the same order).
    var namedKeyOrder: [Int] = []

    /// The result column names, built on first use by ``columnIndex(named:)`` and dropped on reset (a schema change
    /// may re-prepare the statement with other columns).
    var columnNameTable: ColumnNameTable?
    /// ``columnNames`` and ``declaredTypes`` as last read, with the compilation they belong to.
    var cachedColumnNames: (compilation: Int32, names: [String])?
    var cachedDeclaredTypes: (compilation: Int32, types: [String?])?
    /// ``memoized(_:)``'s value, with the compilation it belongs to.
    var memo: (compilation: Int32, value: AnyObject)?
    /// The column after the last one ``columnIndex(named:)`` found, where the next lookup looks first.
    var nextColumnHint = 0

    /// Whether any parameter is named (`:x`, `@x`, `$x`); computed once, as binding checks it on every call.
    lazy var hasNamedParameter: Bool = parameterNames.contains { Self.isNamed($0) }

    /// The statement's position in the cache's least-recently-used order (the cache's clock at its last use).
    var cacheLastUse: UInt64 = 0

    init(connection: Connection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
        self.sql = sqlite3_sql(handle).map { String(cString: $0) } ?? ""
        self.isReadOnly = sqlite3_stmt_readonly(handle) != 0
        self.parameterCount = Int(sqlite3_bind_parameter_count(handle))
        connection.liveStatements.insert(handle)
    }

    deinit {
        // When the connection closed, it already finalized this statement.
        if connection.handle != nil {
            connection.liveStatements.remove(handle)
            sqlite3_finalize(handle)
        }
    }

    /// Whether the connection that prepared the statement is still open.
    var isValid: Bool {
        connection.handle != nil
    }

    /// The name of each parameter, with its prefix (`:id`, `@id`, `$id`, `?3`), or `nil` for an anonymous `?`.
    ///
    /// Index `i` describes parameter `i + 1`.
    public var parameterNames: [String?] {
        parameterTable.names
    }

    /// Whether a row is available or the statement is between its first step and its end.
    public var isBusy: Bool {
        isValid && sqlite3_stmt_busy(handle) != 0
    }

    /// Whether the statement is in use: stepping, or lent to a cursor.
    var isInUse: Bool {
        isCheckedOut || isExecuting || isBusy
    }

    // MARK: - Execution

    /// Steps the statement.
    ///
    /// - Returns: `true` when a row is available, `false` when the statement is done (it is then reset; stepping
    ///   again runs it again with the same bindings).
    /// - Throws: ``DatabaseError``; the statement is reset.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/step.html>
    public func step() throws -> Bool {
        guard isValid else {
            throw DatabaseError.databaseClosed
        }
        if !isExecuting {
            beginExecution()
        }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW {
            return true
        }
        if code == SQLITE_DONE {
            endExecution()
            sqlite3_reset(handle)
            return false
        }
        let error = connection.error(code: code, sql: sql)
        endExecution()
        sqlite3_reset(handle)
        needsEviction = true
        throw error
    }

    /// Resets the statement so it can run again; bindings are kept. Always safe, even after the database closed.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/reset.html>
    public func reset() {
        guard isValid else { return }
        if isExecuting {
            endExecution()
        }
        columnNameTable = nil
        sqlite3_reset(handle)
    }

    /// Binds `arguments`, runs the statement to its end (rows are skipped) and resets it.
    public func run(_ arguments: StatementArguments = .none) throws {
        try bind(arguments)
        while try step() {}
    }

    /// Rows inserted, updated or deleted by this statement since its first step after the last reset.
    ///
    /// Once the run is over: `sqlite3_changes64` when the statement changed anything, else 0. `sqlite3_changes64`
    /// alone keeps the count of an earlier statement across DDL and SELECT; the difference of
    /// `sqlite3_total_changes64` around the run tells whether this statement changed rows, but also counts rows
    /// written by its triggers, which `sqlite3_changes64` leaves out (as the API contract wants). While the
    /// statement is still running, the total difference is all there is.
    public var changes: Int {
        if isExecuting, !isReadOnly, isValid {
            return Int(sqlite3_total_changes64(connection.handle) - totalChangesBefore)
        }
        return finishedChanges
    }

    /// The rowid of the last row this statement inserted in its last run, or `nil` when it inserted none.
    ///
    /// `sqlite3_last_insert_rowid` cannot tell "inserted the same rowid again" from "inserted nothing", so before a
    /// writing statement runs, the connection's value is set to a sentinel (`Int64.min`, with
    /// `sqlite3_set_last_insert_rowid`); if the sentinel survives the run, nothing was inserted and the previous
    /// value is restored, leaving ``Database/lastInsertRowID`` as it was. Rows inserted by triggers do not count,
    /// as in SQLite.
    public var insertedRowID: Int64? {
        finishedInsertedRowID
    }

    private func beginExecution() {
        isExecuting = true
        finishedChanges = 0
        finishedInsertedRowID = nil
        if !isReadOnly, let db = connection.handle {
            totalChangesBefore = sqlite3_total_changes64(db)
            lastInsertRowIDBefore = sqlite3_last_insert_rowid(db)
            sqlite3_set_last_insert_rowid(db, Int64.min)
        }
    }

    private func endExecution() {
        isExecuting = false
        if !isReadOnly, let db = connection.handle {
            let changedAnything = sqlite3_total_changes64(db) != totalChangesBefore
            finishedChanges = changedAnything ? Int(sqlite3_changes64(db)) : 0
            let rowID = sqlite3_last_insert_rowid(db)
            if rowID == Int64.min {
                sqlite3_set_last_insert_rowid(db, lastInsertRowIDBefore)
                finishedInsertedRowID = nil
            } else {
                finishedInsertedRowID = rowID
            }
        } else {
            finishedChanges = 0
            finishedInsertedRowID = nil
        }
        connection.lastChanges = finishedChanges
    }
}

@available(*, unavailable, message: "A Statement is confined to its database's thread")
extension Statement: Sendable {}
