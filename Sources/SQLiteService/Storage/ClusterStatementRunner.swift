import DqliteClient
import SQLiteEngine

/// Runs checked statements (``ClusterStatementPlan``) on the leader and writes their result objects as the local
/// backend's ``StatementExecutor`` does: the same fields, the same value types, the same row limit.
///
/// What the wire does not say is taken from the copy of the schema or asked for: `changes` is the leader's count
/// for `INSERT`, `UPDATE`, `DELETE` and `REPLACE` and 0 for any other statement (SQLite keeps an earlier
/// statement's count across DDL); `last_insert_rowid` is the leader's for an `INSERT` or `REPLACE` that inserted
/// rows, else `null`. A writing statement that returns rows (`RETURNING`) runs in a transaction on one leader
/// connection, where its rows are read (QUERY) and `last_insert_rowid()` asked for, and is committed after;
/// `changes` is then its number of rows (one per row it changed).
struct ClusterStatementRunner {
    let target: ClusterTarget
    /// Whether a read's result columns are compared with those of the copy of the schema, which was not checked
    /// against the leader's schema version for this request: a difference throws ``APIError/staleSchemaCopy``.
    var checksColumns = false
    /// The leader's schema version the copy was built from, for a read to check in its own round trip
    /// (``ClusterTarget/query(_:_:until:expectingSchemaVersion:)``); nil: not checked with the statement.
    var expectedSchemaVersion: Int64?

    /// Prepares `request` on `db` (the copy of the schema), runs it on the leader and appends its result to `out`.
    ///
    /// A statement that changes the schema is applied to `db` first, in a savepoint kept only when the leader
    /// ran it too; one that would declare a column type dqlite's asserts cannot serve is refused there.
    func run(
        _ request: StatementRequest,
        on db: Database,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        try context.checkDeadline()
        let plan = try ClusterStatementPlan(request, on: db, context: context)
        try run(plan, on: db, context: &context, into: &out)
    }

    /// Runs `plan` (already checked on `db`) and appends its result to `out`.
    func run(
        _ plan: ClusterStatementPlan,
        on db: Database?,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        try context.checkDeadline()
        guard plan.kind == .schema, let db else {
            if case .client = target, plan.needsTransaction {
                // Its own transaction: tried again while another node's transaction holds the leader's lock.
                try BusyRetry.run(until: context.deadline) { () throws(APIError) in
                    try execute(plan, context: &context, into: &out)
                }
            } else {
                try execute(plan, context: &context, into: &out)
            }
            return
        }
        try DeclaredTypeGuard.applyChecked(plan.sql, on: db)
        do {
            try execute(plan, context: &context, into: &out)
        } catch {
            DeclaredTypeGuard.undo(on: db)
            throw error
        }
        DeclaredTypeGuard.keep(on: db)
    }

    private func execute(
        _ plan: ClusterStatementPlan,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        var result = JSONWriter()
        var rows = ClusterRowWriter(profile: plan.profile, context: context)
        result.beginObject()
        let deadline = context.deadline
        /// Every set of values, in order, on `target`: the changes and the last inserted rowid.
        func runEverySet(on target: ClusterTarget) throws(APIError) -> (changes: Int, lastRowID: Int64?) {
            var changes = 0
            var lastRowID: Int64?
            for parameters in plan.parameterSets {
                let outcome = try Self.runOnce(
                    plan,
                    parameters,
                    on: target,
                    checksColumns: checksColumns,
                    expectedSchemaVersion: expectedSchemaVersion,
                    until: deadline,
                    rows: &rows,
                    into: &result
                )
                changes += outcome.changes
                lastRowID = outcome.insertedRowID
            }
            return (changes, lastRowID)
        }
        let changes: Int
        let lastRowID: Int64?
        if plan.isBatch && !plan.isReadOnly {
            // A failing set undoes the earlier sets of the same statement.
            (changes, lastRowID) = try target.atomically { (target) throws(APIError) in try runEverySet(on: target) }
        } else {
            (changes, lastRowID) = try runEverySet(on: target)
        }
        rows.writeFooter(into: &result)
        context.remainingRows = rows.remainingRows
        if !plan.isReadOnly {
            result.writeChanges(changes, lastInsertRowID: lastRowID, int64AsString: context.int64AsString)
        }
        if plan.isBatch {
            result.key("count")
            result.writeInt64(Int64(plan.parameterSets.count), asStringIfUnsafe: false)
        }
        result.endObject()
        out.writeRaw(result.bytes)
    }

    /// The result object of a read run once (``ClusterStatementPlan/isPipelinable``) from the leader's answer
    /// `returned`, as ``run(_:on:context:into:)`` writes it; ``APIError/staleSchemaCopy`` when the answer's columns
    /// are not the copy's.
    static func writeRead(
        _ plan: ClusterStatementPlan,
        returned: DqliteRows,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        if returned.columns != plan.profile.columnNames { throw APIError.staleSchemaCopy }
        var rows = ClusterRowWriter(profile: plan.profile, context: context)
        out.beginObject()
        try rows.write(returned, into: &out)
        rows.writeFooter(into: &out)
        context.remainingRows = rows.remainingRows
        out.endObject()
    }

    private struct Outcome {
        var changes: Int
        var insertedRowID: Int64?
    }

    /// One run of the statement with one set of values; a read not answered by `deadline` is 400 `TIMEOUT`.
    private static func runOnce(
        _ plan: ClusterStatementPlan,
        _ parameters: [DqliteValue],
        on target: ClusterTarget,
        checksColumns: Bool,
        expectedSchemaVersion: Int64?,
        until deadline: ContinuousClock.Instant,
        rows: inout ClusterRowWriter,
        into out: inout JSONWriter
    ) throws(APIError) -> Outcome {
        if plan.profile.columnCount == 0 {
            let result = try target.exec(plan.sql, parameters)
            switch plan.kind {
            case .insert:
                return Outcome(
                    changes: Int(result.rowsAffected),
                    insertedRowID: result.rowsAffected > 0 ? result.lastInsertID : nil
                )
            case .change:
                return Outcome(changes: Int(result.rowsAffected))
            case .schema, .other:
                return Outcome(changes: 0)
            }
        }
        if plan.isReadOnly {
            let returned =
                if let expectedSchemaVersion {
                    try target.query(
                        plan.sql,
                        parameters,
                        until: deadline,
                        expectingSchemaVersion: expectedSchemaVersion
                    )
                } else {
                    try target.query(plan.sql, parameters, until: deadline)
                }
            if checksColumns, returned.columns != plan.profile.columnNames { throw APIError.staleSchemaCopy }
            try rows.write(returned, into: &out)
            return Outcome(changes: 0)
        }
        // RETURNING: its rows and its rowid on one leader connection, committed after (or inside the request's own
        // transaction or savepoint).
        let (returned, rowID) = try target.atomically { (target) throws(APIError) -> (DqliteRows, Int64?) in
            let returned = try target.query(plan.sql, parameters)
            guard plan.kind == .insert, !returned.rows.isEmpty else { return (returned, nil) }
            let rowID = try target.query("SELECT last_insert_rowid()", [])
            guard case .integer(let value)? = rowID.rows.first?.first else { return (returned, nil) }
            return (returned, value)
        }
        try rows.write(returned, into: &out, readOnly: false)
        return Outcome(changes: returned.rows.count, insertedRowID: rowID)
    }
}
