import Foundation
import SQLiteEngine

/// Runs validated statement objects on one connection and writes their result
/// objects, straight from the statement into the JSON writer.
///
/// The executor never opens or closes transactions except the one that makes a
/// `params_batch` atomic; the endpoints own transaction boundaries.
struct StatementExecutor {
    let db: Database

    /// Runs `request` and appends its result object to `out`.
    ///
    /// - Throws: `APIError` for every failure, already mapped to the contract's
    ///   code and status; `out` is then left unchanged.
    func run(_ request: StatementRequest, context: inout RequestContext, into out: inout JSONWriter) throws(APIError) {
        try context.checkDeadline()
        let statement = try prepare(request.sql, context: context)
        defer { statement.reset() }
        try Self.writingResult(into: &out) { (result) throws(APIError) in
            try execute(statement, request.parameters, context: &context, into: &result)
        }
    }

    /// Runs `body`, which writes one statement's result object, so that `out` gets the whole object or nothing,
    /// and the response size limit counts this result alone.
    ///
    /// When `out` is empty (the result is the whole document: `/query`, `/update`, each `/batch` statement) the
    /// object is written in place, without a second buffer and a copy, and a failure empties `out` again; after
    /// other output (a `/transaction`'s earlier results) it is written into a buffer of its own, appended on
    /// success.
    private static func writingResult(
        into out: inout JSONWriter,
        _ body: (inout JSONWriter) throws(APIError) -> Void
    ) throws(APIError) {
        guard out.bytes.isEmpty else {
            var result = JSONWriter()
            try body(&result)
            out.writeRaw(result.bytes)
            return
        }
        do throws(APIError) {
            try body(&out)
        } catch {
            out.removeAll()
            throw error
        }
    }

    /// Binds `parameters` (a set of them, or each of several sets) and runs `statement`.
    private func execute(
        _ statement: Statement,
        _ parameters: StatementRequest.Parameters,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        if case .batch(let sets) = parameters {
            try executeBatch(statement, sets: sets, context: &context, into: &out)
        } else if let set = parameters.singleSet {
            try execute(statement, arguments: try set.arguments(), context: &context, into: &out)
        }
    }

    /// Runs one statement of a `/batch` script (already prepared by the
    /// script iterator) and appends its result object to `out`.
    func run(
        scriptStatement statement: Statement,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) {
        defer { statement.reset() }
        try context.checkDeadline()
        try Self.check(statement, context: context)
        try Self.writingResult(into: &out) { (result) throws(APIError) in
            try execute(statement, arguments: .positional([]), context: &context, into: &result)
        }
    }

    /// Runs `request` (a read-only statement with one set of parameters, or none) and streams its rows into `out` as
    /// it steps: the head once the first step succeeded (until then a failure is the ordinary error), then a row at a
    /// time, until the last row or `context.remainingRows` (the request's `max_rows`). The caller ends the stream.
    ///
    /// - Throws: `APIError`; after `out` has started (``StreamedResultWriter/started``), the caller reports it in the
    ///   stream or cuts it.
    func stream(
        _ request: StatementRequest,
        context: inout RequestContext,
        into out: inout StreamedResultWriter
    ) throws(APIError) {
        try context.checkDeadline()
        guard let set = request.parameters.singleSet else {
            throw .invalidRequest("a streamed result takes no params_batch")
        }
        let arguments = try set.arguments()
        let statement = try prepare(request.sql, context: context)
        defer { statement.reset() }
        var rows = RowEmitter(statement: statement, context: context)
        var stepped = 0
        do {
            try statement.bind(arguments)
            while true {
                let hasRow = try statement.step()
                // After the first step, as for the JSON result (a recompiled statement's columns).
                if !out.started { try out.begin(rows.readProfile()) }
                guard hasRow, context.remainingRows > 0 else { break }
                try out.writeRow(statement, emitter: &rows)
                context.remainingRows -= 1
                stepped += 1
                // The progress handler interrupts SQLite at the deadline; a client that reads slowly spends its time
                // between steps, so the clock is read here too (every 256 rows: reading it costs ~25 ns).
                if stepped & 255 == 0 { try context.checkDeadline() }
            }
        } catch {
            throw APIError(error, db: db)
        }
    }

    // MARK: - Preparing

    private func prepare(_ sql: String, context: RequestContext) throws(APIError) -> Statement {
        let statement: Statement
        do {
            statement = try db.cachedStatement(sql: sql)
        } catch {
            throw APIError(error, db: db)
        }
        do {
            try Self.check(statement, context: context)
        } catch {
            statement.reset()
            throw error
        }
        return statement
    }

    /// Applies the contract's statement rules that SQLite does not enforce (also to the statements the cluster
    /// backend checks before sending them to the leader).
    static func check(_ statement: Statement, context: RequestContext) throws(APIError) {
        switch StatementProfile.of(statement).transactionControl {
        case .transaction:
            throw .transactionControl(
                "BEGIN, COMMIT, END and ROLLBACK are not accepted: use POST /transaction for atomic work"
            )
        case .savepoint where !context.allowsSavepoints:
            throw .transactionControl("SAVEPOINT, RELEASE and ROLLBACK TO are only accepted inside POST /transaction")
        case .savepoint, nil:
            break
        }
        if let reason = StatementProfile.of(statement).vacuumDenial {
            throw .sqlite(name: "SQLITE_AUTH", code: 23, message: "denied by the SQL policy: \(reason)")
        }
        if context.requiresReadOnly, !statement.isReadOnly {
            throw .readonlyStatement("the statement would modify the database: use POST /update")
        }
    }

    // MARK: - Executing

    private func execute(
        _ statement: Statement,
        arguments: StatementArguments,
        context: inout RequestContext,
        into result: inout JSONWriter
    ) throws(APIError) {
        var rows = RowEmitter(statement: statement, context: context)
        result.beginObject()
        let outcome = try step(statement, arguments: arguments, rows: &rows, context: &context, into: &result)
        rows.writeFooter(into: &result)
        if !statement.isReadOnly {
            result.writeChanges(
                outcome.changes,
                lastInsertRowID: outcome.insertedRowID,
                int64AsString: context.int64AsString
            )
        }
        result.endObject()
    }

    private func executeBatch(
        _ statement: Statement,
        sets: [StatementRequest.ParameterSet],
        context: inout RequestContext,
        into result: inout JSONWriter
    ) throws(APIError) {
        var rows = RowEmitter(statement: statement, context: context)
        var changes = 0
        var lastRowID: Int64?
        result.beginObject()
        let runAll = { (context: inout RequestContext, result: inout JSONWriter) throws(APIError) -> Void in
            for (index, set) in sets.enumerated() {
                let arguments = try set.arguments(setIndex: index)
                let outcome = try step(statement, arguments: arguments, rows: &rows, context: &context, into: &result)
                changes += outcome.changes
                lastRowID = outcome.insertedRowID
            }
        }
        if statement.isReadOnly {
            try runAll(&context, &result)
        } else {
            // A failing set undoes the earlier sets of the same statement: a
            // savepoint inside an open transaction, else a transaction of its own.
            try atomically(context: &context, output: &result, runAll)
        }
        rows.writeFooter(into: &result)
        if !statement.isReadOnly {
            result.writeChanges(changes, lastInsertRowID: lastRowID, int64AsString: context.int64AsString)
        }
        result.key("count")
        result.writeInt64(Int64(sets.count), asStringIfUnsafe: false)
        result.endObject()
    }

    private func atomically(
        context: inout RequestContext,
        output: inout JSONWriter,
        _ body: (inout RequestContext, inout JSONWriter) throws(APIError) -> Void
    ) throws(APIError) {
        let name = "sqlited_params_batch"
        let nested = db.isInTransaction
        do {
            if nested {
                try db.beginSavepoint(name)
            } else {
                try db.beginTransaction(.immediate)
            }
        } catch {
            throw APIError(error, db: db)
        }
        do {
            try body(&context, &output)
        } catch {
            if nested {
                try? db.rollbackToSavepoint(name)
                try? db.releaseSavepoint(name)
            } else if db.isInTransaction {
                try? db.rollback()
            }
            throw error
        }
        do {
            if nested {
                try db.releaseSavepoint(name)
            } else {
                try db.commit()
            }
        } catch {
            if !nested, db.isInTransaction { try? db.rollback() }
            throw APIError(error, db: db)
        }
    }

    private struct StepOutcome {
        var changes: Int
        var insertedRowID: Int64?
    }

    /// Binds, steps to the end and resets; rows go to `rows` until the budget is spent.
    private func step(
        _ statement: Statement,
        arguments: StatementArguments,
        rows: inout RowEmitter,
        context: inout RequestContext,
        into out: inout JSONWriter
    ) throws(APIError) -> StepOutcome {
        defer { statement.reset() }
        do {
            try statement.bind(arguments)
            while true {
                let hasRow = try statement.step()
                // After the first step, not before: it recompiles a statement whose schema changed (a column
                // added to `*`, say), and the header must list the columns the rows will have.
                rows.writeHeaderIfNeeded(into: &out)
                guard hasRow else { break }
                if context.remainingRows > 0 {
                    try rows.writeRow(into: &out)
                    context.remainingRows -= 1
                } else {
                    rows.truncated = true
                    // A read-only statement can stop here; a writing one (RETURNING)
                    // must run to its end so that every change it makes happens.
                    if statement.isReadOnly { break }
                }
            }
        } catch {
            throw APIError(error, db: db)
        }
        return StepOutcome(changes: statement.changes, insertedRowID: statement.insertedRowID)
    }

    // MARK: - Arguments

    /// Named values keyed as the SQL writes them; two keys for one parameter are refused.
    static func namedArguments(
        _ parameters: [StatementRequest.NamedParameter],
        setIndex: Int? = nil
    ) throws(APIError) -> StatementArguments {
        var values: [String: DatabaseValue] = [:]
        var seen: Set<String> = []
        for parameter in parameters {
            let key = parameter.name
            let bare = key.first.map { ":@$".contains($0) } == true ? String(key.dropFirst()) : key
            guard seen.insert(bare).inserted else {
                let location = setIndex.map { "params_batch[\($0)]: " } ?? ""
                throw .bindError("\(location)parameter '\(bare)' is given more than once")
            }
            values[key] = parameter.value.databaseValue
        }
        return .named(values)
    }
}

extension ParameterValue {
    /// The value as the engine binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .blob(let bytes): .blob(Data(bytes))
        }
    }
}
