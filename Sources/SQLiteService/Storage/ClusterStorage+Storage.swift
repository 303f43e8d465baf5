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

    func query(
        _ request: QueryRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?
    ) throws(APIError) -> [UInt8] {
        let plan = try readSchema.withSchema(refreshingFrom: reader) { db throws(APIError) in
            try ClusterStatementPlan(request.statement, on: db, context: context)
        }
        var writer = JSONWriter()
        try ClusterStatementRunner(target: .readOnly(reader)).run(plan, on: nil, context: &context, into: &writer)
        return writer.bytes
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
