import DqliteClient
import DqliteCluster
import Foundation
import SQLiteEngine

/// Where a Tables read finds its tables and rows: the local database, or the cluster's leader with this node's copy
/// of its schema (``SchemaShadow``) for the tables and keys. The same ``RecordQuery`` makes the same SQL on both.
enum RecordSource {
    case local(Database)
    /// Rows from the leader through the read-only client; `schema` is the copy of the leader's schema. A statement
    /// not answered by `deadline` (the request's time limit) is 400 `TIMEOUT`.
    case cluster(schema: Database, reader: ClusterClient, deadline: ContinuousClock.Instant? = nil)

    /// The database whose schema names the tables and their keys.
    var schema: Database {
        switch self {
        case .local(let db), .cluster(let db, _, _): db
        }
    }

    /// The same source with reads held to `deadline` (the local database's are, by the caller's
    /// `withRequestDeadline`).
    func until(_ deadline: ContinuousClock.Instant) -> RecordSource {
        switch self {
        case .local: self
        case .cluster(let schema, let reader, _): .cluster(schema: schema, reader: reader, deadline: deadline)
        }
    }

    /// The page of `query`.
    func fetchPage(_ query: RecordQuery) throws(APIError) -> RecordPage {
        switch self {
        case .local(let db):
            return try SQLiteService.mapped(db) { try db.fetchRecordPage(query) }
        case .cluster(_, let reader, let deadline):
            let statement = query.pageStatement()
            let rows = try Self.rows(statement.sql, statement.arguments, on: reader, until: deadline)
            // The page reads its output and sort-key columns by position: a leader's answer narrower than the
            // statement (which names every column) is an error, not a crash.
            guard rows.allSatisfy({ $0.count >= statement.columnCount }) else {
                throw .sqlite(
                    name: "SQLITE_INTERNAL",
                    code: 2,
                    message: "the leader's answer had fewer columns than the page's statement"
                )
            }
            return query.page(from: rows, of: statement)
        }
    }

    /// The number of rows matching `query`'s filters.
    func count(_ query: RecordQuery) throws(APIError) -> Int64 {
        switch self {
        case .local(let db):
            return try SQLiteService.mapped(db) { try db.countRecords(query) }
        case .cluster(_, let reader, let deadline):
            let (sql, arguments) = query.countStatement()
            guard case .integer(let count)? = try Self.rows(sql, arguments, on: reader, until: deadline).first?.first
            else {
                // count(*) always gives one integer: anything else is the leader's answer gone wrong, not zero rows.
                throw .sqlite(name: "SQLITE_INTERNAL", code: 2, message: "the leader's count(*) answer had no integer")
            }
            return count
        }
    }

    /// The row of `table` whose key is `key`, or nil.
    func fetchRecord(
        _ table: RecordTable,
        key: [DatabaseValue],
        columns: [String]?
    ) throws(APIError) -> [DatabaseValue]? {
        switch self {
        case .local(let db):
            return try SQLiteService.mapped(db) { try db.fetchRecord(table, key: key, columns: columns) }
        case .cluster:
            return try fetchPage(RecordQuery(table: table, key: key, columns: columns)).rows.first
        }
    }

    /// The rows of a `SELECT` run on the leader, values as the engine types them.
    private static func rows(
        _ sql: String,
        _ arguments: [DatabaseValue],
        on reader: ClusterClient,
        until deadline: ContinuousClock.Instant?
    ) throws(APIError) -> [[DatabaseValue]] {
        let rows: DqliteRows
        do {
            rows = try reader.query(sql, parameters: arguments.map(\.dqliteValue), deadline: deadline)
        } catch {
            throw APIError(cluster: error, isWrite: false)
        }
        return rows.rows.map { $0.map(\.databaseValue) }
    }
}
