import HTTPServer
import SQLiteEngine

/// `GET /tables/{table}/rows/{key}` without options, the Tables API's most frequent request, in one statement.
///
/// The general path reads `PRAGMA schema_version` to validate the connection's cached table, then the row, inside
/// `BEGIN`/`COMMIT`: four statements. Here the cached table's lookup reads the schema version in the same statement
/// (``Database/fetchRecordCheckingSchema(_:key:)``), with no explicit transaction: one statement is one read
/// transaction, one snapshot. When the table is not cached yet, the schema changed, or anything else fails, the
/// general path answers (so every error is the one it gives).
extension SQLiteService {
    /// The answer of the one-statement lookup on the event loop; nil when it does not apply or cannot tell (no free
    /// reader, table not cached, schema changed, a key part that does not convert): the general path answers.
    func tableRowOnEventLoop(
        _ route: TablesRoute,
        _ request: HTTPRequest,
        settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse? {
        guard case .row(let name, let key) = route, request.method == "GET", request.query.isEmpty else { return nil }
        let deadline = min(ContinuousClock.now + Self.eventLoopBudget, .now + settings.limits.statementTimeout)
        let metrics = settings.options.metrics
        let output = try store.readNow(metrics: metrics, isolation: .statement) { db throws(APIError) -> [UInt8]? in
            guard let table = db.cachedRecordTable(named: name),
                let keyValues = try? Self.keyValues(key, table: table)
            else { return nil }
            let found: Database.CheckedRecord
            do throws(APIError) {
                found = try db.withRequestDeadline(deadline) { () throws(APIError) in
                    try Self.mapped(db) { try db.fetchRecordCheckingSchema(table, key: keyValues) }
                }
            } catch {
                return nil
            }
            switch found {
            case .schemaChanged:
                return nil
            case .noRow:
                throw .noSuchRow()
            case .row(let row):
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("row")
                Self.writeRow(
                    row,
                    columns: table.defaultOutputColumns,
                    shape: .objects,
                    int64AsString: false,
                    into: &writer
                )
                writer.endObject()
                return writer.bytes
            }
        }
        return output.map { Self.jsonResponse($0) }
    }
}
