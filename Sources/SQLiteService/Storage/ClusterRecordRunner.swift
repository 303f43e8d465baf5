import SQLiteEngine

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
