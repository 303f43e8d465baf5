import SQLiteEngine

/// The query string of `GET /tables/{table}/rows` and `/count` (and `DELETE …/rows`): filters and `_` options,
/// checked against the table and turned into a ``RecordQuery``.
///
/// Filters: `col=v` (repeated: `IN`), `col__ne|__lt|__lte|__gt|__gte=v`, `col__isnull=true|false`; a column whose
/// exact name is the whole key (`a__lt` when the table has such a column) is an equality filter on it. Values are
/// converted by the column's declared type (``RecordValueKind``).
struct TableListRequest {
    var query: RecordQuery
    /// `_order` as given, normalized (`col,-col2`, stored names): cursors are bound to it.
    var orderKey: String
    var count = false
    var shape = RequestOptions.Shape.objects
    var int64AsString = false
    var after: String?
    var before: String?
    /// Whether `_limit` was given (a streamed list has no limit otherwise).
    var hasLimit = false

    /// The options a list takes; `/count` and `DELETE` take none of them.
    static let listOptions: Set<String> = [
        "_order", "_limit", "_after", "_before", "_count", "_columns", "_shape", "_int64_as_string",
    ]

    /// Parses `pairs` for `table`. `allowedOptions` is ``listOptions`` for a list, empty for count and delete.
    init(
        table: RecordTable,
        pairs: [(name: String, value: String)],
        allowedOptions: Set<String>,
        maxRows: Int
    ) throws(APIError) {
        query = RecordQuery(table: table)
        query.limit = min(100, maxRows)
        orderKey = ""
        var seenOptions: Set<String> = []
        var equalities: [String: Int] = [:]  // column → index in query.filters
        for (name, value) in pairs {
            if name.hasPrefix("_") {
                guard allowedOptions.contains(name) else {
                    throw .invalidRequest("unknown option \(RequestDecoder.quotedForMessage(name))")
                }
                guard seenOptions.insert(name).inserted else {
                    throw .invalidRequest("option \(name) given twice")
                }
                try apply(option: name, value: value, table: table, maxRows: maxRows)
                continue
            }
            let (column, op) = try Self.filterTarget(name, table: table)
            if case .isNull = op {
                guard value == "true" || value == "false" else {
                    throw .invalidRequest("\(name) must be true or false")
                }
                query.filters.append(RecordFilter(column: column, op: .isNull(value == "true"), values: []))
                continue
            }
            let converted = try Self.convert(value, column: column, table: table)
            if op == .equal, let index = equalities[column.lowercased()] {
                query.filters[index].values.append(converted)
            } else {
                if op == .equal { equalities[column.lowercased()] = query.filters.count }
                query.filters.append(RecordFilter(column: column, op: op, values: [converted]))
            }
        }
        if after != nil && before != nil {
            throw .invalidRequest("_after and _before cannot be used together")
        }
    }

    private mutating func apply(option: String, value: String, table: RecordTable, maxRows: Int) throws(APIError) {
        switch option {
        case "_order":
            var ordering: [RecordOrdering] = []
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let descending = part.hasPrefix("-")
                let name = String(descending ? part.dropFirst() : part)
                guard !name.isEmpty else { throw .invalidRequest("_order has an empty column name") }
                let column = try Self.column(name, table: table)
                guard !ordering.contains(where: { $0.column.lowercased() == column.lowercased() }) else {
                    throw .invalidRequest("_order names a column twice")
                }
                ordering.append(RecordOrdering(column: column, descending: descending))
            }
            query.ordering = ordering
            orderKey = ordering.map { ($0.descending ? "-" : "") + $0.column }.joined(separator: ",")
        case "_limit":
            guard let limit = Int(value), limit >= 1, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw .invalidRequest("_limit must be a whole number of at least 1")
            }
            query.limit = min(limit, maxRows)
            hasLimit = true
        case "_after":
            after = value
        case "_before":
            before = value
        case "_count":
            count = try Self.flag(option, value)
        case "_columns":
            var columns: [String] = []
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                columns.append(try Self.column(String(part), table: table))
            }
            query.columns = columns
        case "_shape":
            switch value {
            case "objects": shape = .objects
            case "arrays": shape = .arrays
            default: throw .invalidRequest(#"_shape must be "objects" or "arrays""#)
            }
        default:  // "_int64_as_string"
            int64AsString = try Self.flag(option, value)
        }
    }

    private static func flag(_ option: String, _ value: String) throws(APIError) -> Bool {
        switch value {
        case "true": return true
        case "false": return false
        default: throw .invalidRequest("\(option) must be true or false")
        }
    }

    private static let operators: [(suffix: String, op: RecordFilter.Operator)] = [
        ("__ne", .notEqual), ("__lte", .lessOrEqual), ("__lt", .less), ("__gte", .greaterOrEqual),
        ("__gt", .greater), ("__isnull", .isNull(true)),
    ]

    /// The column and operator a filter key names.
    private static func filterTarget(
        _ name: String,
        table: RecordTable
    ) throws(APIError) -> (String, RecordFilter.Operator) {
        if let column = table.storedName(of: name) { return (column, .equal) }
        for (suffix, op) in operators where name.hasSuffix(suffix) && name.count > suffix.count {
            return (try column(String(name.dropLast(suffix.count)), table: table), op)
        }
        return (try column(name, table: table), .equal)
    }

    /// The stored name of column `name` of `table`, or 400 `NO_SUCH_COLUMN`.
    static func column(_ name: String, table: RecordTable) throws(APIError) -> String {
        guard let column = table.storedName(of: name) else {
            throw .noSuchColumn("table \(table.name) has no column \(RequestDecoder.quotedForMessage(name))")
        }
        return column
    }

    /// `text` as a value of `column`, or 400 `BIND_ERROR` naming the column (never the value).
    static func convert(_ text: String, column: String, table: RecordTable) throws(APIError) -> DatabaseValue {
        let kind = table.valueKind(of: column)
        guard let value = kind.value(fromText: text) else {
            let expected =
                switch kind {
                case .integer: "an integer within 64 bits"
                case .number: "a number"
                case .blob: "base64"
                case .text, .untyped: "text"
                }
            throw .bindError("column \(RequestDecoder.quotedForMessage(column)): the value is not \(expected)")
        }
        return value
    }
}
