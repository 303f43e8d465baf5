import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// Keyset paging: every page forward and backward equals the hand-written ORDER BY, on random tables; an indexed
/// order is an index range scan; rows that exist throughout are neither skipped nor repeated while others write.
@Suite struct RecordPagingTests {
    /// A small deterministic generator (SplitMix64), so that a failing case can be replayed from its seed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// The key kinds covered.
    static let schemas = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, s1 INTEGER, s2 TEXT)",
        "CREATE TABLE t(s1 INTEGER, s2 TEXT)",
        "CREATE TABLE t(id TEXT PRIMARY KEY, s1 INTEGER, s2 TEXT) WITHOUT ROWID",
        "CREATE TABLE t(a INTEGER, b TEXT, s1 INTEGER, s2 TEXT, PRIMARY KEY(b, a))",
    ]

    /// Walks every page forward from the start, then every page backward from the last row; returns the rows'
    /// keys (the key columns come first in each row).
    static func walk(
        _ db: Database,
        _ base: RecordQuery
    ) throws -> (forward: [[DatabaseValue]], backward: [[DatabaseValue]]) {
        let keyCount = base.table.key.count
        var forward: [[DatabaseValue]] = []
        var lastSortKey: [DatabaseValue]?
        var query = base
        for _ in 0..<1000 {
            let page = try db.fetchRecordPage(query)
            forward += page.rows.map { Array($0.prefix(keyCount)) }
            guard page.hasMore, let last = page.sortKeys.last else {
                lastSortKey = page.sortKeys.last ?? lastSortKey
                break
            }
            lastSortKey = last
            query.position = RecordCursorPosition(direction: .after, values: last)
        }
        guard let lastSortKey, let lastRow = forward.last else { return (forward, []) }
        var backward: [[DatabaseValue]] = [lastRow]
        query = base
        query.position = RecordCursorPosition(direction: .before, values: lastSortKey)
        for _ in 0..<1000 {
            let page = try db.fetchRecordPage(query)
            backward = page.rows.map { Array($0.prefix(keyCount)) } + backward
            guard page.hasMore, let first = page.sortKeys.first else { break }
            query.position = RecordCursorPosition(direction: .before, values: first)
        }
        return (forward, backward)
    }

    @Test func randomTablesOrdersAndFilters_pageExactlyAsOrderBy() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var random = Generator(state: seed)
        for trial in 0..<120 {
            let db = try makeMemoryDatabase()
            try db.execute(sql: Self.schemas[trial % Self.schemas.count])
            let table = try #require(try db.recordTable(named: "t"))
            let texts: [DatabaseValue] = [.null, .text("a"), .text("b"), .text("B"), .text("c")]
            for index in 0..<(10 + random.next(40)) {
                var row: [(column: String, value: DatabaseValue)] = [
                    ("s1", random.next(4) == 0 ? .null : .integer(Int64(random.next(4)))),
                    ("s2", texts[random.next(texts.count)]),
                ]
                switch trial % Self.schemas.count {
                case 0: row.append(("id", .integer(Int64(index * 3 + random.next(3)))))
                case 2: row.append(("id", .text("k\(random.next(1000))")))
                case 3: row += [("a", .integer(Int64(random.next(5)))), ("b", .text("b\(index)"))]
                default: break
                }
                _ = try db.insertRecords(into: table, rows: [row], onConflict: .ignore)
            }
            var query = RecordQuery(table: table)
            let orderable = ["s1", "s2"].filter { _ in random.next(3) > 0 }
            query.ordering = orderable.map { RecordOrdering(column: $0, descending: random.next(2) == 0) }
            if random.next(2) == 0, let first = query.ordering.first {
                // Sometimes order by a key column too.
                query.ordering.append(RecordOrdering(column: table.key[0], descending: random.next(2) == 0))
                _ = first
            }
            switch random.next(4) {
            case 0: query.filters = [RecordFilter(column: "s1", op: .isNull(false), values: [])]
            case 1: query.filters = [RecordFilter(column: "s2", op: .notEqual, values: [.text("b")])]
            case 2: query.filters = [RecordFilter(column: "s1", op: .equal, values: [.integer(1), .integer(2)])]
            default: break
            }
            query.limit = 1 + random.next(7)

            var all = query
            all.limit = nil
            let expectedSQL = all.selectStatement()
            let expected = try db.fetchAll(sql: expectedSQL.sql, arguments: .positional(expectedSQL.arguments)).map {
                row in (0..<table.key.count).map { row.value(at: $0) }
            }
            let (forward, backward) = try Self.walk(db, query)
            #expect(forward == expected, "seed \(seed) trial \(trial) order \(query.ordering) filters \(query.filters)")
            #expect(
                backward == expected,
                "seed \(seed) trial \(trial) order \(query.ordering) filters \(query.filters)"
            )
        }
    }

    /// The expected order, written by hand for one case with NULLs and duplicates: s1 DESC (NULLs last), then the
    /// key.
    @Test func nullsAndDuplicates_inADescendingOrder() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, s1 INTEGER)")
        try db.execute(sql: "INSERT INTO t VALUES (1, NULL), (2, 5), (3, NULL), (4, 5), (5, 7), (6, 1)")
        var query = RecordQuery(table: try #require(try db.recordTable(named: "t")))
        query.ordering = [RecordOrdering(column: "s1", descending: true)]
        query.limit = 2
        let (forward, backward) = try Self.walk(db, query)
        let expected: [[DatabaseValue]] = [5, 2, 4, 6, 1, 3].map { [.integer($0)] }
        #expect(forward == expected)
        #expect(backward == expected)
    }

    /// The page made of rows read elsewhere (the cluster's leader runs `pageStatement()` and hands its rows to
    /// `page(from:of:)`) is the page `fetchRecordPage` makes, forward and backward, full and not; with an ordering
    /// column left out of the output, the statement's rows are wider than the output (`columnCount`).
    @Test func pageFromRowsReadElsewhere_isTheLocalPage() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, s1 INTEGER, s2 TEXT)")
        try db.execute(sql: "INSERT INTO t VALUES (1, 3, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 1, 'd'), (5, 9, 'e')")
        var query = RecordQuery(table: try #require(try db.recordTable(named: "t")))
        query.ordering = [RecordOrdering(column: "s1", descending: false)]
        query.columns = ["s2"]
        for (limit, position) in [
            (2, nil), (10, nil),
            (2, RecordCursorPosition(direction: .after, values: [.integer(1), .integer(4)])),
            (2, RecordCursorPosition(direction: .before, values: [.integer(9), .integer(5)])),
        ] as [(Int, RecordCursorPosition?)] {
            query.limit = limit
            query.position = position
            let statement = query.pageStatement()
            #expect(statement.outputCount == 2)
            #expect(statement.columnCount > statement.outputCount)
            let rows = try db.fetchAll(sql: statement.sql, arguments: .positional(statement.arguments)).map { row in
                (0..<row.count).map { row[$0] }
            }
            #expect(rows.allSatisfy { $0.count == statement.columnCount })
            #expect(
                query.page(from: rows, of: statement) == (try db.fetchRecordPage(query)),
                "\(limit) \(String(describing: position))"
            )
        }
    }

    /// A page after or before a row, ordered by an indexed column, is an index range scan: no sort of the whole
    /// result, no full scan, no OFFSET.
    @Test func indexedOrder_isAnIndexRangeScan() throws {
        let db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, created INTEGER NOT NULL, name TEXT)")
        try db.execute(sql: "CREATE INDEX t_created ON t(created)")
        var query = RecordQuery(table: try #require(try db.recordTable(named: "t")))
        query.limit = 100
        for descending in [false, true] {
            query.ordering = [RecordOrdering(column: "created", descending: descending)]
            for direction in [RecordCursorPosition.Direction.after, .before] {
                query.position = RecordCursorPosition(direction: direction, values: [.integer(500), .integer(42)])
                let select = query.selectStatement()
                let plan = try db.fetchAll(
                    sql: "EXPLAIN QUERY PLAN " + select.sql,
                    arguments: .positional(select.arguments)
                )
                .compactMap { $0.string(at: 3) }.joined(separator: "\n")
                #expect(plan.contains("USING INDEX t_created (created"), "\(descending) \(direction): \(plan)")
                // Never a sort of the whole result. Descending, the index (created, rowid) read backwards gives the
                // key descending too, so SQLite sorts each run of equal `created` values by the key ascending
                // ("RIGHT PART"): a small sort of ties, not of the table.
                #expect(!plan.contains("USE TEMP B-TREE FOR ORDER BY"), "\(descending) \(direction): \(plan)")
                if !descending {
                    #expect(!plan.contains("TEMP B-TREE"), "\(direction): \(plan)")
                }
                #expect(!select.sql.contains("OFFSET"))
            }
        }
        // The default order, by the key: a rowid range.
        query.ordering = []
        query.position = RecordCursorPosition(direction: .after, values: [.integer(42)])
        let select = query.selectStatement()
        let plan = try db.fetchAll(sql: "EXPLAIN QUERY PLAN " + select.sql, arguments: .positional(select.arguments))
            .compactMap { $0.string(at: 3) }.joined(separator: "\n")
        #expect(plan.contains("USING INTEGER PRIMARY KEY (rowid>"), "\(plan)")
    }

    /// While another connection inserts and deletes rows, paging through committed snapshots (one per page) returns
    /// every row that existed throughout exactly once, in order, and no row twice.
    @Test func concurrentWrites_neverSkipOrRepeatStableRows() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path())
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, s1 INTEGER)")
            // Stable rows: even ids; the writer churns odd ids.
            try db.execute(
                sql: "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 300) "
                    + "INSERT INTO t SELECT i * 2, i % 7 FROM s"
            )
        }
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        onNewThread {
            var n: Int64 = 0
            while !stop.load(ordering: .relaxed) {
                n += 1
                let id = (n % 300) * 2 + 1
                _ = try? pool.write { db in
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO t VALUES (?, ?)",
                        arguments: [.integer(id), .integer(n % 7)]
                    )
                    try db.execute(sql: "DELETE FROM t WHERE id = ?", arguments: [.integer(((n + 150) % 300) * 2 + 1)])
                }
            }
            done.signal()
        }
        defer {
            stop.store(true, ordering: .relaxed)
            done.wait()
        }
        let table = try #require(try pool.read { db in try db.recordTable(named: "t") })
        for descending in [false, true] {
            var query = RecordQuery(table: table)
            query.ordering = [RecordOrdering(column: "s1", descending: descending)]
            query.limit = 17
            var seen: [Int64] = []
            var sortKeys: [[DatabaseValue]] = []
            for _ in 0..<1000 {
                let page = try pool.read { db in try db.fetchRecordPage(query) }
                seen += page.rows.compactMap { if case .integer(let id) = $0[0] { id } else { nil } }
                sortKeys += page.sortKeys
                guard page.hasMore, let last = page.sortKeys.last else { break }
                query.position = RecordCursorPosition(direction: .after, values: last)
            }
            #expect(Set(seen).count == seen.count, "a row came twice")
            let stable = seen.filter { $0 % 2 == 0 }
            #expect(Set(stable) == Set((1...300).map { Int64($0 * 2) }), "a stable row was skipped")
            // The rows came in the sort order.
            func number(_ value: DatabaseValue) -> Int64 {
                if case .integer(let v) = value { return v }
                return Int64.min  // NULL sorts below every value
            }
            let expectedOrder = sortKeys.sorted { lhs, rhs in
                let l = number(lhs[0])
                let r = number(rhs[0])
                if l != r { return descending ? l > r : l < r }
                guard case .integer(let a) = lhs[1], case .integer(let b) = rhs[1] else { return false }
                return a < b
            }
            #expect(sortKeys == expectedOrder)
        }
    }
}
