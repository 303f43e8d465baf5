/// A page of records from rows read elsewhere (the cluster's leader): the statement ``Database/fetchRecordPage(_:)``
/// runs, and the page it makes of the rows.
extension RecordQuery {
    /// The query of the row of `table` whose key is `key` (values in key order): ``columns`` or all, one row.
    public init(table: RecordTable, key: [DatabaseValue], columns: [String]?) {
        self.init(table: table)
        filters = Database.keyFilters(table, key)
        self.columns = columns
        limit = 1
    }

    /// The page's `SELECT`, asking one row more than ``limit`` to tell whether more follow.
    public func pageStatement() -> SelectStatement {
        var probe = self
        if let limit { probe.limit = limit + 1 }
        return probe.selectStatement()
    }

    /// The page of the rows `statement` (``pageStatement()``) returned, in the order they came: as
    /// ``Database/fetchRecordPage(_:)`` makes it.
    public func page(from rows: [[DatabaseValue]], of statement: SelectStatement) -> RecordPage {
        var builder = RecordPageBuilder(query: self, statement: statement)
        for row in rows {
            guard builder.add({ row[$0] }) else { break }
        }
        return builder.page
    }
}

/// A page made of the rows of a query's ``RecordQuery/pageStatement()`` in the order they come, wherever they are
/// read (the local database, the cluster's leader): at most ``RecordQuery/limit`` rows, one more only telling that
/// more follow.
struct RecordPageBuilder {
    private let query: RecordQuery
    private let statement: RecordQuery.SelectStatement
    private var gathered = RecordPage(rows: [], sortKeys: [], hasMore: false)

    init(query: RecordQuery, statement: RecordQuery.SelectStatement) {
        self.query = query
        self.statement = statement
    }

    /// Adds the next row, whose column `i` is `value(i)`; false when the page was full (the row only tells that more
    /// follow): read no more.
    mutating func add(_ value: (Int) -> DatabaseValue) -> Bool {
        if let limit = query.limit, gathered.rows.count == limit {
            gathered.hasMore = true
            return false
        }
        gathered.rows.append((0..<statement.outputCount).map(value))
        gathered.sortKeys.append(statement.sortKeyIndices.map(value))
        return true
    }

    /// The page, in the query's order (the rows of a page before a row are read backwards).
    var page: RecordPage {
        guard query.position?.direction == .before else { return gathered }
        return RecordPage(
            rows: gathered.rows.reversed(),
            sortKeys: gathered.sortKeys.reversed(),
            hasMore: gathered.hasMore
        )
    }
}
