import SQLiteEngine

/// This project's engine doing the same work through its public API.
final class EnginePeer {
    static var libraryVersion: String { sqliteLibraryVersion }
    private let db: Database

    init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.synchronous = .full
        db = try Database(path: path, configuration: configuration)
    }

    func fetchByIndex(sql: String) throws -> Int {
        let cursor = try db.query(sql: sql)
        let statement = cursor.statement
        var sum = 0
        while try cursor.step() {
            for column in 0..<10 { sum &+= Int(statement.int64(at: column)) }
        }
        return sum
    }

    func fetchByName(sql: String, names: [String]) throws -> Int {
        let cursor = try db.query(sql: sql)
        let statement = cursor.statement
        var sum = 0
        while try cursor.step() {
            for name in names {
                if let index = statement.columnIndex(named: name) { sum &+= Int(statement.int64(at: index)) }
            }
        }
        return sum
    }

    // The inserts build an argument array or dictionary per row and bind it with the strict `run(_:)`, as the GRDB
    // peer does with `StatementArguments` and `execute(arguments:)`: the same work a typical caller does.
    func insertPositional(rows: Int, sql: String) throws -> Int {
        try db.transaction(.immediate) { db in
            try db.execute(sql: "DELETE FROM ins")
            let statement = try db.cachedStatement(sql: sql)
            for row in 0..<rows {
                var values: [DatabaseValue] = []
                values.reserveCapacity(10)
                for column in 0..<10 { values.append(.integer(Int64(row &* 10 &+ column))) }
                try statement.run(.positional(values))
            }
        }
        return rows
    }

    func insertNamed(rows: Int, sql: String, names: [String]) throws -> Int {
        try db.transaction(.immediate) { db in
            try db.execute(sql: "DELETE FROM ins")
            let statement = try db.cachedStatement(sql: sql)
            for row in 0..<rows {
                var values: [String: DatabaseValue] = [:]
                values.reserveCapacity(10)
                for (column, name) in names.enumerated() { values[name] = .integer(Int64(row &* 10 &+ column)) }
                try statement.run(.named(values))
            }
        }
        return rows
    }

    // One read transaction around all the selects, as GRDB's `read` opens one (a savepoint).
    func pointSelects(ids: [Int64]) throws -> Int {
        try db.transaction(.deferred) { db in
            var sum = 0
            for id in ids {
                let statement = try db.cachedStatement(sql: "SELECT * FROM t WHERE id = ?")
                try statement.bind(.positional([.integer(id)]))
                if try statement.step() { sum &+= Int(statement.int64(at: 1)) }
                statement.reset()
            }
            return sum
        }
    }
}
