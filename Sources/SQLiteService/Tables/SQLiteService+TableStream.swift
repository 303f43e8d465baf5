import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `GET /tables/{table}/rows?…` streamed (NDJSON, CSV): the list's `SELECT` (``RecordQuery``), without a limit
    /// unless `_limit` is given, from the cursor's row on with `_after`/`_before`, sent through the one streamed
    /// query path (``streamedResponse``) as a `/query` of it would be. No `next`/`prev`; `_count` → 400.
    ///
    /// The table, columns, filters and cursor are checked against the schema first: a mistake is the ordinary JSON
    /// error.
    func streamedRows(
        _ name: String,
        _ request: HTTPRequest,
        format: ResultFormat,
        settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse {
        let pairs = request.query
        let metrics = settings.options.metrics
        var planned: (statement: StatementRequest, options: RequestOptions)?
        _ = try store.readSchema(metrics: metrics) { db throws(APIError) -> [UInt8] in
            let table = try Self.table(name, db)
            var list = try TableListRequest(
                table: table,
                pairs: pairs,
                allowedOptions: TableListRequest.listOptions,
                maxRows: .max
            )
            guard !list.count else { throw .invalidRequest("_count cannot be used with a streamed list") }
            if !list.hasLimit { list.query.limit = nil }
            if let cursor = list.after ?? list.before {
                let values = try store.cursorCodec().decode(
                    cursor,
                    table: table.name,
                    order: list.orderKey,
                    count: list.query.sortKeys.count
                )
                list.query.position = RecordCursorPosition(
                    direction: list.after != nil ? .after : .before,
                    values: values
                )
            }
            let select = list.query.streamStatement()
            planned = (
                StatementRequest(sql: select.sql, parameters: .positional(select.arguments.map(ParameterValue.init))),
                RequestOptions(shape: list.shape, int64AsString: list.int64AsString)
            )
            return []
        }
        guard let planned else { throw .internal("the list's statement was not made") }
        return streamedResponse(
            format,
            statement: planned.statement,
            context: RequestContext(streaming: planned.options, limits: settings.limits),
            settings: settings
        )
    }
}

extension ParameterValue {
    /// The value as a request would bind it.
    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }
}
