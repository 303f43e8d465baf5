import DqliteCluster
import SQLiteEngine

/// The reads on the cluster: each statement checked on this node's copy of the leader's schema (the local backend's
/// checks and errors), then run on the leader through the read-only client.
extension ClusterStorage: Storage {
    func openTransaction(
        _ mode: TransactionOpenRequest.Mode,
        limits: ServiceLimits,
        metrics: ServiceMetrics?
    ) throws(APIError) -> any TransactionHandle {
        do {
            return try ClusterInteractiveTransaction(
                storage: self,
                mode: mode,
                waitLimit: .now + limits.writerWaitTimeout
            )
        } catch {
            if mode != .readOnly, BusyRetry.isBusy(error) { metrics?.transactions.waitsBusy.increment() }
            throw error
        }
    }

    /// One round trip to the leader: the statement is checked on the copy of the schema as last checked, without
    /// asking the leader's schema version first. An answer that may come from an out-of-date copy (an error
    /// `SQLITE_ERROR` or `SQLITE_SCHEMA`, from the copy or the leader, or result columns other than the copy's) is
    /// given up, and the request runs again on a copy checked against the leader (rebuilt when the schema changed),
    /// whose answer stands.
    ///
    /// A `*` takes its columns from the schema, and a stale answer can match a stale copy: dqlite 1.11 reads a
    /// statement's column count before its first step, so a leader connection whose statement was prepared on the
    /// old schema answers once in the old layout after another node's `ALTER TABLE` (SQLite prepares it again
    /// within that step, too late for the header), and the copy as last checked would match it. Such a statement
    /// goes with `PRAGMA schema_version` in the same write (still one round trip), and an answer whose version is
    /// not the copy's is given up as above; with the versions equal the copy is the leader's schema, and a stale
    /// header differs from it.
    func query(
        _ request: QueryRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?
    ) throws(APIError) -> [UInt8] {
        let before = context
        let withStar = Self.takesColumnsFromSchema(request.statement.sql)
        var checkedCopy = false
        var attempts = 0
        while true {
            do {
                return try query(request, context: &context, checkedCopy: checkedCopy, checkingVersion: withStar)
            } catch {
                attempts += 1
                guard attempts < 3, Self.mayComeFromAStaleCopy(error) else { throw error }
                context = before
                checkedCopy = true
            }
        }
    }

    private func query(
        _ request: QueryRequest,
        context: inout RequestContext,
        checkedCopy: Bool,
        checkingVersion: Bool
    ) throws(APIError) -> [UInt8] {
        let (plan, version) = try readSchema.withSchema(refreshingFrom: reader, checkingVersion: checkedCopy) {
            (db, version) throws(APIError) in
            (try ClusterStatementPlan(request.statement, on: db, context: context), version)
        }
        var writer = JSONWriter()
        var runner = ClusterStatementRunner(target: .readOnly(reader))
        runner.checksColumns = true
        if checkingVersion, !checkedCopy {
            // The copy was never checked (nil): check it first, then run as after a stale answer.
            guard let version else { throw APIError.staleSchemaCopy }
            runner.expectedSchemaVersion = version
        }
        try runner.run(plan, on: nil, context: &context, into: &writer)
        return writer.bytes
    }

    /// Whether `error` may be the answer of an out-of-date copy of the schema (a table or column it lacks or has
    /// too many of), so that the request must run again on a checked copy.
    static func mayComeFromAStaleCopy(_ error: APIError) -> Bool {
        if error.message == APIError.staleSchemaCopy.message { return true }
        guard let code = error.sqliteCode else { return false }
        return code & 0xff == 1 || code & 0xff == 17
    }

    /// Checked on the copy of the schema like a JSON `/query`, then run on the leader through the read client, its
    /// rows streamed as dqlite's ROWS parts arrive (``ClusterClient/query(_:parameters:deadline:eachPart:)``): one
    /// leader connection is held until the last row, and this node keeps one part at a time.
    func streamQuery(
        _ statement: StatementRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?,
        into out: inout StreamedResultWriter
    ) throws(APIError) {
        if case .batch = statement.parameters { throw .invalidRequest("a streamed result takes no params_batch") }
        let plan = try readSchema.withSchema(refreshingFrom: reader) { db throws(APIError) in
            try ClusterStatementPlan(statement, on: db, context: context)
        }
        try context.checkDeadline()
        let writer = ClusterRowWriter(profile: plan.profile, context: context)
        /// Thrown to stop reading once the request's `max_rows` rows are out (the connection is closed).
        struct Enough: Error {}
        do {
            try reader.query(plan.sql, parameters: plan.parameterSets.first ?? [], deadline: context.deadline) {
                part in
                if !out.started { try out.begin(plan.profile) }
                for row in part.rows {
                    guard context.remainingRows > 0 else { throw Enough() }
                    try out.writeRow(row, writer: writer)
                    context.remainingRows -= 1
                }
                try context.checkDeadline()
                if context.remainingRows <= 0 && part.hasMore { throw Enough() }
            }
        } catch let error as APIError {
            throw error
        } catch let error as ClusterError {
            throw APIError(cluster: error, isWrite: false)
        } catch is Enough {
            return
        } catch {
            throw .internal("the streamed cluster query failed")
        }
    }

    /// The cluster's reads use leader connections, not a pool of this node's readers.
    var streamReaders: Int? { nil }

    func readSchema(
        metrics: ServiceMetrics?,
        _ body: (Database) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8] {
        try readSchema.withSchema(refreshingFrom: reader, body)
    }

    func readRecords(
        metrics: ServiceMetrics?,
        _ body: (RecordSource) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8] {
        try readSchema.withSchema(refreshingFrom: reader) { db throws(APIError) in
            try body(.cluster(schema: db, reader: reader))
        }
    }

    /// The cluster's reads wait for the leader: never on the event loop.
    func readNow(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation,
        _ body: (Database) throws(APIError) -> [UInt8]?
    ) throws(APIError) -> [UInt8]? {
        nil
    }

    func unavailableReason() -> String? {
        guard let info = try? status(), info.leaderID != nil else { return "this node knows no leader of the cluster" }
        return nil
    }
}

extension APIError {
    /// A read's result columns differ from those of this node's copy of the schema: the copy is out of date (never
    /// answered: the request runs again on a checked copy).
    static var staleSchemaCopy: APIError { .internal("this node's copy of the leader's schema is out of date") }
}
