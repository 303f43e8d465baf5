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
        var page = RecordPage(rows: [], sortKeys: [], hasMore: false)
        for row in rows {
            if let limit, page.rows.count == limit {
                page.hasMore = true
                break
            }
            page.rows.append(Array(row.prefix(statement.outputCount)))
            page.sortKeys.append(statement.sortKeyIndices.map { row[$0] })
        }
        if position?.direction == .before {
            page.rows.reverse()
            page.sortKeys.reverse()
        }
        return page
    }
}
