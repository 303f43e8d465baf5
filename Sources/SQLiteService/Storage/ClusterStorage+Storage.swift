import SQLiteEngine

/// The reads on the cluster: each statement checked on this node's copy of the leader's schema (the local backend's
/// checks and errors), then run on the leader through the read-only client.
extension ClusterStorage: Storage {
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
