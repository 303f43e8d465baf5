import Foundation
import HTTPServer
import SQLiteEngine

/// The Tables API (`../shared/API.md` v1.1, "Tables"): ObjectiveFMDB's record operations over HTTP.
///
/// Reads run on a reader (on the event loop when one is free at once, under the same budget as `/query`), writes on
/// the writer through ``onWriter(metrics:_:)`` — with group commit like every other write — each request all or
/// nothing in one savepoint. Names are matched against the schema and quoted, values always bound
/// (``RecordQuery``).
extension SQLiteService {
    /// The route of a Tables request (its table name and key decoded from the raw path).
    static func tablesRoute(_ request: HTTPRequest) throws(APIError) -> TablesRoute {
        guard let route = try TablesRoute.parse(rawPath: request.rawPath) else { throw noEndpoint(request) }
        return route
    }

    /// A Tables read (`GET` under `/tables`) on a handler thread.
    func tablesReadResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        let route = try Self.tablesRoute(request)
        if case .rows(let name) = route {
            let format = try Self.resultFormat(of: request)
            if format.isStreamed { return try streamedRows(name, request, format: format, settings: settings) }
        }
        let read = try tablesRead(route, request, limits: settings.limits)
        return Self.jsonResponse(try store.readRecords(metrics: settings.options.metrics, read))
    }

    /// A Tables write, checked.
    func tablesWrite(_ request: HTTPRequest, limits: ServiceLimits) throws(APIError) -> StorageWrite {
        try tablesWrite(Self.tablesRoute(request), request, limits: limits)
    }

    /// A Tables read on the event loop, when a reader is free now and the work fits the budget; nil otherwise
    /// (``handle(_:)`` answers, waiting where it may).
    func tablesReadOnEventLoop(_ request: HTTPRequest, settings: ServiceSettings) throws(APIError) -> HTTPResponse? {
        let route = try Self.tablesRoute(request)
        // A streamed list is sent from a handler thread (its writer blocks while the client reads).
        if case .rows = route, try Self.resultFormat(of: request) != .json { return nil }
        if let answer = try tableRowOnEventLoop(route, request, settings: settings) { return answer }
        guard request.body.count <= Self.eventLoopBodyLimit else { return nil }
        let read = try tablesRead(route, request, limits: settings.limits)
        return try withEventLoopBudget(metrics: settings.options.metrics) { db throws(APIError) in
            try read(.local(db))
        }
    }

    /// The work of a reading request (`GET`/`HEAD`), checked as far as it can be without the schema. The same on
    /// both storages (``RecordSource``).
    func tablesRead(
        _ route: TablesRoute,
        _ request: HTTPRequest,
        limits: ServiceLimits
    ) throws(APIError) -> (RecordSource) throws(APIError) -> [UInt8] {
        let pairs = request.query
        let deadline = ContinuousClock.now + limits.statementTimeout
        return { source throws(APIError) in
            let source = source.until(deadline)
            let db = source.schema
            return try db.withRequestDeadline(deadline) { () throws(APIError) in
                switch route {
                case .list:
                    return try Self.tableListBody(db)
                case .rows(let name):
                    return try self.rowsBody(source, table: try Self.table(name, db), pairs: pairs, limits: limits)
                case .row(let name, let key):
                    return try Self.rowBody(
                        source,
                        table: try Self.table(name, db),
                        key: key,
                        pairs: pairs,
                        limits: limits
                    )
                case .count(let name):
                    let table = try Self.table(name, db)
                    let list = try TableListRequest(
                        table: table,
                        pairs: pairs,
                        allowedOptions: [],
                        maxRows: limits.maxRows
                    )
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.key("count")
                    writer.writeInt64(try source.count(list.query))
                    writer.endObject()
                    return writer.bytes
                }
            }
        }
    }

    // MARK: Reads

    /// `GET /tables`.
    private static func tableListBody(_ db: Database) throws(APIError) -> [UInt8] {
        let tables = try mapped(db) { try db.recordTables() }.filter { !SQLPolicy.isServerTable($0.name) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("tables")
        writer.beginArray()
        for table in tables {
            writer.beginObject()
            writer.key("name")
            writer.writeString(table.name)
            writer.key("key")
            writer.beginArray()
            for column in table.key { writer.writeString(column) }
            writer.endArray()
            writer.key("columns")
            writeColumns(table.columns, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `GET /tables/{table}/rows?…`: a page, with `next` (and `prev` for a page before a row, `count` when asked).
    private func rowsBody(
        _ source: RecordSource,
        table: RecordTable,
        pairs: [(name: String, value: String)],
        limits: ServiceLimits
    ) throws(APIError) -> [UInt8] {
        var list = try TableListRequest(
            table: table,
            pairs: pairs,
            allowedOptions: TableListRequest.listOptions,
            maxRows: limits.maxRows
        )
        let sortKeyCount = list.query.sortKeys.count
        let cursorCodec = try store.cursorCodec()
        if let cursor = list.after ?? list.before {
            let values = try cursorCodec.decode(cursor, table: table.name, order: list.orderKey, count: sortKeyCount)
            list.query.position = RecordCursorPosition(direction: list.after != nil ? .after : .before, values: values)
        }
        let page = try source.fetchPage(list.query)
        let columns = list.query.outputColumns
        var writer = JSONWriter()
        writer.beginObject()
        if list.shape == .arrays { Self.writeColumnNames(columns, into: &writer) }
        writer.key("rows")
        writer.beginArray()
        for row in page.rows {
            try Self.checkSize(writer, limits: limits)
            Self.writeRow(row, columns: columns, shape: list.shape, int64AsString: list.int64AsString, into: &writer)
        }
        writer.endArray()
        let backwards = list.before != nil
        // Forward, `next` names the last row when more follow; a page before a row always has rows after it.
        let next = backwards ? page.sortKeys.last : (page.hasMore ? page.sortKeys.last : nil)
        writer.key("next")
        Self.writeCursor(next, table: table, order: list.orderKey, codec: cursorCodec, into: &writer)
        if backwards {
            writer.key("prev")
            Self.writeCursor(
                page.hasMore ? page.sortKeys.first : nil,
                table: table,
                order: list.orderKey,
                codec: cursorCodec,
                into: &writer
            )
        }
        if list.count {
            writer.key("count")
            writer.writeInt64(try source.count(list.query))
        }
        writer.endObject()
        return writer.bytes
    }

    /// `GET /tables/{table}/rows/{key}`: `{"row": {...}}` (with `_shape=arrays`, `columns` and the row's values).
    private static func rowBody(
        _ source: RecordSource,
        table: RecordTable,
        key: [String],
        pairs: [(name: String, value: String)],
        limits: ServiceLimits
    ) throws(APIError) -> [UInt8] {
        let options = try TableListRequest(
            table: table,
            pairs: pairs,
            allowedOptions: ["_columns", "_shape", "_int64_as_string"],
            maxRows: limits.maxRows
        )
        guard options.query.filters.isEmpty else {
            throw .invalidRequest("a row by key takes no filters (only _columns, _shape and _int64_as_string)")
        }
        let keyValues = try keyValues(key, table: table)
        guard let row = try source.fetchRecord(table, key: keyValues, columns: options.query.columns) else {
            throw .noSuchRow()
        }
        let columns = options.query.outputColumns
        var writer = JSONWriter()
        writer.beginObject()
        if options.shape == .arrays { writeColumnNames(columns, into: &writer) }
        writer.key("row")
        writeRow(row, columns: columns, shape: options.shape, int64AsString: options.int64AsString, into: &writer)
        writer.endObject()
        return writer.bytes
    }

    // MARK: Helpers shared with the writes

    /// The record table `name`, or 404 `NO_SUCH_TABLE`.
    static func table(_ name: String, _ db: Database) throws(APIError) -> RecordTable {
        guard let table = try mapped(db, { try db.recordTable(named: name) }), !SQLPolicy.isServerTable(table.name)
        else {
            throw .noSuchTable("no table named '\(clipped(name))'")
        }
        return table
    }

    /// A key from its text parts, in key order: 400 `INVALID_REQUEST` for the wrong number of parts, `BIND_ERROR`
    /// for a part that does not convert.
    static func keyValues(_ parts: [String], table: RecordTable) throws(APIError) -> [DatabaseValue] {
        guard parts.count == table.key.count else {
            throw .invalidRequest(
                "the key of \(table.name) has \(table.key.count) part(s) (\(table.key.joined(separator: ","))), "
                    + "not \(parts.count)"
            )
        }
        var values: [DatabaseValue] = []
        for (part, column) in zip(parts, table.key) {
            values.append(try TableListRequest.convert(part, column: column, table: table))
        }
        return values
    }

    /// Runs an engine call, mapping its error to the contract's.
    static func mapped<T>(_ db: Database, _ body: () throws -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(error, db: db)
        }
    }

    /// `"columns": [...]`, the names a page or row in the `arrays` shape carries.
    private static func writeColumnNames(_ columns: [String], into writer: inout JSONWriter) {
        writer.key("columns")
        writer.beginArray()
        for column in columns { writer.writeString(column) }
        writer.endArray()
    }

    static func writeRow(
        _ values: [DatabaseValue],
        columns: [String],
        shape: RequestOptions.Shape,
        int64AsString: Bool,
        into writer: inout JSONWriter
    ) {
        switch shape {
        case .arrays:
            writer.beginArray()
            for value in values { writeValue(value, int64AsString: int64AsString, into: &writer) }
            writer.endArray()
        case .objects:
            writer.beginObject()
            for (column, value) in zip(columns, values) {
                writer.key(column)
                writeValue(value, int64AsString: int64AsString, into: &writer)
            }
            writer.endObject()
        }
    }

    /// A value as the contract's Values table writes it (exactly as `/query` does).
    static func writeValue(_ value: DatabaseValue, int64AsString: Bool, into writer: inout JSONWriter) {
        switch value {
        case .null: writer.writeNull()
        case .integer(let integer): writer.writeInt64(integer, asStringIfUnsafe: int64AsString)
        case .real(let real): writer.writeDouble(real)
        case .text(let text): writer.writeString(text)
        case .blob(let data): writer.writeBase64(Array(data))
        }
    }

    private static func writeColumns(_ columns: [ColumnInfo], into writer: inout JSONWriter) {
        writer.beginArray()
        for column in columns {
            writer.beginObject()
            writer.key("cid")
            writer.writeInt64(Int64(column.cid))
            writer.key("name")
            writer.writeString(column.name)
            writer.key("type")
            writer.writeString(column.type)
            writer.key("notnull")
            writer.writeInt64(column.notNull ? 1 : 0)
            writer.key("default")
            if let value = column.defaultValue { writer.writeString(value) } else { writer.writeNull() }
            writer.key("pk")
            writer.writeInt64(Int64(column.primaryKeyIndex))
            writer.endObject()
        }
        writer.endArray()
    }

    private static func writeCursor(
        _ values: [DatabaseValue]?,
        table: RecordTable,
        order: String,
        codec cursorCodec: RecordCursorCodec,
        into writer: inout JSONWriter
    ) {
        if let values {
            writer.writeString(cursorCodec.encode(table: table.name, order: order, values: values))
        } else {
            writer.writeNull()
        }
    }

    private static func checkSize(_ writer: JSONWriter, limits: ServiceLimits) throws(APIError) {
        if writer.bytes.count > limits.maxResponseBytes {
            throw .sqlite(
                name: "SQLITE_TOOBIG",
                code: 18,
                message: "the result exceeds the response size limit of \(limits.maxResponseBytes) bytes "
                    + "(lower _limit or choose fewer _columns)"
            )
        }
    }
}

extension APISchemas {
    /// The JSON Schemas of the Tables API's reads (OpenAPI, ``APISchemas``).
    static let tablesReads: [(name: String, json: String)] = [
        (
            "Column",
            ##"{"type": "object", "required": ["cid", "name", "type", "notnull", "default", "pk"], "properties": {"cid": {"type": "integer"}, "name": {"type": "string"}, "type": {"type": "string"}, "notnull": {"type": "integer"}, "default": {"type": ["string", "null"]}, "pk": {"type": "integer"}}}"##
        ),
        (
            "TableList",
            ##"{"type": "object", "required": ["tables"], "properties": {"tables": {"type": "array", "items": {"type": "object", "required": ["name", "key", "columns"], "properties": {"name": {"type": "string"}, "key": {"type": "array", "items": {"type": "string"}}, "columns": {"type": "array", "items": {"$ref": "#/components/schemas/Column"}}}}}}}"##
        ),
        (
            "RowPage",
            ##"{"type": "object", "required": ["rows", "next"], "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "rows": {"type": "array", "items": {"$ref": "#/components/schemas/ResultRow"}}, "next": {"type": ["string", "null"]}, "prev": {"type": ["string", "null"]}, "count": {"type": "integer"}}}"##
        ),
        (
            "Row",
            ##"{"type": "object", "required": ["row"], "properties": {"columns": {"type": "array", "items": {"type": "string"}}, "row": {"description": "An object, or an array with _shape=arrays.", "if": {"type": "object"}, "else": {"type": "array"}}}}"##
        ),
        ("Count", ##"{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}"##),
    ]
}
