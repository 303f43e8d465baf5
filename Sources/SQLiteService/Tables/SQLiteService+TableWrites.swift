import HTTPServer
import SQLiteEngine

/// The writing endpoints of the Tables API: `POST …/rows` (JSON objects to rows), `PATCH …/rows/{key}`,
/// `DELETE …/rows/{key}` and `DELETE …/rows?FILTERS`. Each is all or nothing: in one savepoint on the local writer,
/// in one transaction on the cluster's leader; the same statements on both (``RecordStatementRunner``).
extension SQLiteService {
    /// The tables and the statements of a Tables write: where names are checked (the local database, or this node's
    /// copy of the leader's schema) and where the statements run.
    struct RecordWriteTarget {
        let schema: Database
        let runner: any RecordStatementRunner
    }

    /// The work of a writing request, its body checked before it waits for the writer, and its time limit.
    typealias TablesWriteWork = (
        deadline: ContinuousClock.Instant, work: (RecordWriteTarget) throws(APIError) -> [UInt8]
    )

    /// The work of a writing request on `route`, its body checked first.
    func tablesWriteWork(
        _ route: TablesRoute,
        _ request: HTTPRequest,
        limits: ServiceLimits
    ) throws(APIError) -> TablesWriteWork {
        let deadline = ContinuousClock.now + limits.statementTimeout
        let work: (RecordWriteTarget) throws(APIError) -> [UInt8]
        switch (route, request.method) {
        case (.rows(let name), "POST"):
            try JSONContentType.check(request.headers["content-type"])
            let insert = try TableInsertRequest(request.body, maxRows: limits.maxBatchSize)
            work = { target throws(APIError) in
                try Self.insertBody(target, table: try Self.table(name, target.schema), insert)
            }
        case (.rows(let name), _):  // DELETE by filters
            let pairs = request.query
            work = { target throws(APIError) in
                let table = try Self.table(name, target.schema)
                let list = try TableListRequest(table: table, pairs: pairs, allowedOptions: [], maxRows: limits.maxRows)
                guard !list.query.filters.isEmpty else {
                    throw .invalidRequest("DELETE of rows needs at least one filter (it would delete every row)")
                }
                return Self.changesBody(try Self.mapped(target.schema) { try target.runner.deleteRecords(list.query) })
            }
        case (.row(let name, let key), "PATCH"):
            try JSONContentType.check(request.headers["content-type"])
            let values = try Self.patchValues(request.body)
            work = { target throws(APIError) in
                let table = try Self.table(name, target.schema)
                let keyValues = try Self.keyValues(key, table: table)
                let row = try Self.columnValues(values, table: table, context: nil)
                guard
                    let updated = try Self.mapped(
                        target.schema,
                        { try target.runner.updateRecord(table, key: keyValues, values: row) }
                    )
                else { throw .noSuchRow() }
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("row")
                Self.writeRow(
                    updated,
                    columns: RecordQuery(table: table).outputColumns,
                    shape: .objects,
                    int64AsString: false,
                    into: &writer
                )
                writer.endObject()
                return writer.bytes
            }
        case (.row(let name, let key), _):  // DELETE by key
            work = { target throws(APIError) in
                let table = try Self.table(name, target.schema)
                let keyValues = try Self.keyValues(key, table: table)
                let changes = try Self.mapped(target.schema) { try target.runner.deleteRecord(table, key: keyValues) }
                guard changes > 0 else { throw .noSuchRow() }
                return Self.changesBody(changes)
            }
        default:
            throw .internal("no Tables write for this route")
        }
        return (deadline, work)
    }

    /// A Tables write, all or nothing.
    func tablesWrite(
        _ route: TablesRoute,
        _ request: HTTPRequest,
        limits: ServiceLimits
    ) throws(APIError) -> StorageWrite {
        let (deadline, work) = try tablesWriteWork(route, request, limits: limits)
        return StorageWrite(deadline: deadline, bytes: request.body.count) { session throws(APIError) in
            Self.jsonResponse(
                try session.atomically(mode: nil, marksRolledBack: false) { session throws(APIError) in
                    try work(RecordWriteTarget(schema: session.schema, runner: session.records))
                }
            )
        }
    }

    private static func insertBody(
        _ target: RecordWriteTarget,
        table: RecordTable,
        _ insert: TableInsertRequest
    ) throws(APIError)
        -> [UInt8]
    {
        var rows: [[(column: String, value: DatabaseValue)]] = []
        for (index, object) in insert.rows.enumerated() {
            do throws(APIError) {
                rows.append(try columnValues(object, table: table, context: "rows[\(index)]"))
            } catch {
                var error = error
                error.rowIndex = index
                error.rolledBack = true
                throw error
            }
        }
        let result: (changes: Int, keys: [[DatabaseValue]?])
        do {
            result = try target.runner.insertRecords(into: table, rows: rows, onConflict: insert.onConflict)
        } catch let error as RecordRowError {
            var mapped = error.underlying as? APIError ?? APIError(error.underlying, db: target.schema)
            mapped.rowIndex = error.rowIndex
            mapped.rolledBack = true
            throw mapped
        } catch {
            throw error as? APIError ?? APIError(error, db: target.schema)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("changes")
        writer.writeInt64(Int64(result.changes))
        writer.key("keys")
        writer.beginArray()
        for key in result.keys {
            if let key {
                writeRow(key, columns: table.key, shape: .objects, int64AsString: insert.int64AsString, into: &writer)
            } else {
                writer.writeNull()
            }
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static func changesBody(_ changes: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("changes")
        writer.writeInt64(Int64(changes))
        writer.endObject()
        return writer.bytes
    }

    /// A `PATCH` body: a non-empty JSON object of columns and values.
    private static func patchValues(_ body: [UInt8]) throws(APIError) -> JSONObject {
        let object = try jsonObjectBody(body, notAnObject: "the body must be a JSON object of columns and values")
        guard !object.isEmpty else { throw .invalidRequest("the body names no column to set") }
        return object
    }

    /// An object's members as stored column names and bindable values (`NO_SUCH_COLUMN`, `BIND_ERROR` naming the
    /// column, never the value).
    static func columnValues(
        _ object: JSONObject,
        table: RecordTable,
        context: String?
    ) throws(APIError)
        -> [(column: String, value: DatabaseValue)]
    {
        var row: [(column: String, value: DatabaseValue)] = []
        for member in object.members {
            let column = try TableListRequest.column(member.key, table: table)
            guard !row.contains(where: { $0.column == column }) else {
                throw .invalidRequest(RequestDecoder.located("column \(column) given twice", in: context))
            }
            let value = try RequestDecoder.parameterValue(
                member.value,
                parameter: "column \(RequestDecoder.quotedForMessage(column))",
                set: "",
                context: context
            )
            row.append((column, value.databaseValue))
        }
        return row
    }
}

/// The body of `POST /tables/{table}/rows`: `{"rows": [{...}, ...], "on_conflict": …, "int64_as_string": bool}`.
struct TableInsertRequest {
    var rows: [JSONObject] = []
    var onConflict = RecordConflictPolicy.error
    var int64AsString = false

    init(_ body: [UInt8], maxRows: Int) throws(APIError) {
        let object = try SQLiteService.jsonObjectBody(body)
        for member in object.members {
            switch (member.key, member.value) {
            case ("rows", .array(let items)):
                guard !items.isEmpty else { throw .invalidRequest("rows is empty") }
                guard items.count <= maxRows else {
                    throw .invalidRequest("rows holds more than \(maxRows) rows")
                }
                for (index, item) in items.enumerated() {
                    guard case .object(let row) = item else {
                        throw .invalidRequest("rows[\(index)] must be an object of columns and values")
                    }
                    rows.append(row)
                }
            case ("rows", let other):
                throw .invalidRequest("rows must be an array, not \(other.typeName)")
            case ("on_conflict", .string("error")): onConflict = .error
            case ("on_conflict", .string("ignore")): onConflict = .ignore
            case ("on_conflict", .string("update")): onConflict = .update
            case ("on_conflict", _):
                throw .invalidRequest(#"on_conflict must be "error", "ignore" or "update""#)
            case ("int64_as_string", .bool(let flag)): int64AsString = flag
            case ("int64_as_string", _): throw .invalidRequest("int64_as_string must be a boolean")
            default:
                throw .invalidRequest("unknown key \(RequestDecoder.quotedForMessage(member.key))")
            }
        }
        guard !rows.isEmpty else { throw .invalidRequest("rows is missing") }
    }
}

extension APISchemas {
    /// The JSON Schemas of the Tables API's writes (OpenAPI, ``APISchemas``).
    static let tablesWrites: [(name: String, json: String)] = [
        (
            "RowsInsert",
            ##"{"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "minItems": 1, "items": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}}}, "on_conflict": {"type": "string", "enum": ["error", "ignore", "update"]}, "int64_as_string": {"type": "boolean"}}}"##
        ),
        (
            "Changes",
            ##"{"type": "object", "required": ["changes"], "properties": {"changes": {"type": "integer"}, "keys": {"type": "array", "items": {"description": "The row's key, or null.", "if": {"type": "object"}, "else": {"type": "null"}}}}}"##
        ),
        (
            "RowPatch",
            ##"{"type": "object", "minProperties": 1, "additionalProperties": {"$ref": "#/components/schemas/Value"}}"##
        ),
        (
            "RowWriteResult",
            ##"{"description": "PATCH: the updated row; DELETE: the number of rows deleted.", "oneOf": [{"$ref": "#/components/schemas/Row"}, {"$ref": "#/components/schemas/Changes"}]}"##
        ),
    ]
}
