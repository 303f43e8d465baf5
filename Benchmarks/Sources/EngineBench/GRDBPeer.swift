import GRDB

/// The comparison peer: GRDB.swift doing the same work through its public API.
final class GRDBPeer {
    private let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.journalMode = .wal
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous=FULL") }
    }

    func fetchByIndex(sql: String) throws -> Int {
        try queue.read { db in
            var sum = 0
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                for column in 0..<10 { sum &+= Int(row[column] as Int64) }
            }
            return sum
        }
    }

    func fetchByName(sql: String, names: [String]) throws -> Int {
        try queue.read { db in
            var sum = 0
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                for name in names { sum &+= Int(row[name] as Int64) }
            }
            return sum
        }
    }

    // Same transaction kind as the other contenders (IMMEDIATE), with the DELETE inside it.
    func insertPositional(rows: Int, sql: String) throws -> Int {
        try queue.inTransaction(.immediate) { db in
            try db.execute(sql: "DELETE FROM ins")
            let statement = try db.cachedStatement(sql: sql)
            for row in 0..<rows {
                var values: [Int64] = []
                values.reserveCapacity(10)
                for column in 0..<10 { values.append(Int64(row &* 10 &+ column)) }
                try statement.execute(arguments: StatementArguments(values))
            }
            return .commit
        }
        return rows
    }

    func insertNamed(rows: Int, sql: String, names: [String]) throws -> Int {
        try queue.inTransaction(.immediate) { db in
            try db.execute(sql: "DELETE FROM ins")
            let statement = try db.cachedStatement(sql: sql)
            for row in 0..<rows {
                var values: [String: (any DatabaseValueConvertible)?] = [:]
                values.reserveCapacity(10)
                for (column, name) in names.enumerated() { values[name] = Int64(row &* 10 &+ column) }
                try statement.execute(arguments: StatementArguments(values))
            }
            return .commit
        }
        return rows
    }

    func pointSelects(ids: [Int64]) throws -> Int {
        try queue.read { db in
            var sum = 0
            let statement = try db.cachedStatement(sql: "SELECT * FROM t WHERE id = ?")
            for id in ids {
                if let row = try Row.fetchOne(statement, arguments: [id]) { sum &+= Int(row[1] as Int64) }
            }
            return sum
        }
    }
}
