import Foundation
import SQLiteEngine
import Testing

/// The library example of `docs/library.md` (it was the README's), line for line (with a temporary path), so that
/// it keeps compiling and working.
@Test func readmeExample_runsAsWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    let db = try Database(path: path)
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
    try db.execute(sql: "INSERT INTO t(name) VALUES (:name)", arguments: ["name": .text("Ann")])
    let cursor = try db.query(sql: "SELECT id, name FROM t WHERE id > ?", arguments: [.integer(0)])
    while let row = try cursor.next() {
        print(row.int64(named: "id")!, row.string(at: 1)!)
    }
    try db.transaction(.immediate) { db in try db.execute(sql: "DELETE FROM t") }

    let pool = try DatabasePool(path: path, configuration: .init(configuration: Configuration()))
    let count = try pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") }

    #expect(printed == ["1 Ann"])
    #expect(count == 0)
}
