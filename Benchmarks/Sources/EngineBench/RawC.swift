import CSQLiteRaw

/// The limit: the same work through libsqlite3's C API directly, no abstraction.
final class RawC {
    private var db: OpaquePointer?

    init(path: String) {
        precondition(
            sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK
        )
        exec("PRAGMA journal_mode=WAL")
        exec("PRAGMA synchronous=FULL")
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) {
        precondition(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
    }

    private func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK)
        return statement
    }

    func fetchAll(sql: String) -> Int {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        var sum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<10 { sum &+= Int(sqlite3_column_int64(statement, Int32(column))) }
        }
        return sum
    }

    func insert(rows: Int, sql: String) -> Int {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        // The DELETE runs inside the transaction, as for every contender: one commit (one fsync) per run.
        exec("BEGIN IMMEDIATE")
        exec("DELETE FROM ins")
        for row in 0..<rows {
            for column in 0..<10 { sqlite3_bind_int64(statement, Int32(column + 1), Int64(row &* 10 &+ column)) }
            precondition(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_reset(statement)
        }
        exec("COMMIT")
        return rows
    }

    func pointSelects(ids: [Int64]) -> Int {
        let statement = prepare("SELECT * FROM t WHERE id = ?")
        defer { sqlite3_finalize(statement) }
        var sum = 0
        // One read transaction around all the selects, as GRDB's `read` opens one (a savepoint).
        exec("BEGIN DEFERRED")
        defer { exec("COMMIT") }
        for id in ids {
            sqlite3_bind_int64(statement, 1, id)
            if sqlite3_step(statement) == SQLITE_ROW { sum &+= Int(sqlite3_column_int64(statement, 1)) }
            sqlite3_reset(statement)
        }
        return sum
    }
}
