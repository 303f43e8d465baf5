import HTTPServer
import SQLiteEngine

/// The Tables API's writes on the cluster backend, with the local backend's checks, SQL and JSON: the tables and
/// keys come from this node's copy of the leader's schema (brought up to date first); the statements run on one
/// leader connection in a transaction, the same as on the local writer (``RecordStatementRunner``). The reads go
/// through ``Storage/readRecords(metrics:_:)``.
extension SQLiteService {
    /// A Tables write (`POST`, `PATCH`, `DELETE`): all or nothing in one transaction on the leader, tried again
    /// from the start while another node's transaction holds the leader's write lock (as `/transaction`). A COMMIT
    /// whose answer was lost is 503 `UNAVAILABLE` (the outcome is unknown), as for every cluster write.
    func clusterTablesWrite(
        _ request: HTTPRequest,
        limits: ServiceLimits,
        cluster: ClusterStorage
    ) throws(APIError) -> HTTPResponse {
        let (deadline, work) = try tablesWriteWork(Self.tablesRoute(request), request, limits: limits)
        let output = try cluster.writeSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
            try BusyRetry.run(until: deadline) { () throws(APIError) in
                try ClusterTarget.client(cluster.writer).atomically { target throws(APIError) in
                    try work(RecordWriteTarget(schema: db, runner: ClusterRecordRunner(target: target)))
                }
            }
        }
        return Self.jsonResponse(output)
    }
}

/// The record writes' statements on one leader connection inside a transaction: rows (`RETURNING` included) read
/// with QUERY on that connection, changes counted by EXEC. Errors are the contract's (``APIError``).
struct ClusterRecordRunner: RecordStatementRunner {
    /// A transaction's connection (``ClusterTarget/atomically(_:)``).
    let target: ClusterTarget

    func recordRows(sql: String, arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        try target.query(sql, arguments.map(\.dqliteValue)).rows.map { $0.map(\.databaseValue) }
    }

    func recordChanges(sql: String, arguments: [DatabaseValue]) throws -> Int {
        Int(try target.exec(sql, arguments.map(\.dqliteValue)).rowsAffected)
    }
}
