import Foundation

// Engine benchmark: raw C (the limit) vs SQLiteEngine vs GRDB, same file, same work.
// Run: swift run -c release --package-path Benchmarks EngineBench [runs] [--only TEXT] [--contender NAME]
// --only keeps the workloads whose name contains TEXT and --contender keeps one contender: for profiling one
// workload under valgrind (callgrind), e.g. `EngineBench 1 --only named --contender SQLiteEngine`.

func option(_ name: String, in arguments: inout [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...index + 1) }
    return arguments[index + 1]
}
var arguments = Array(CommandLine.arguments.dropFirst())
let onlyWorkload = option("--only", in: &arguments)
let onlyContender = option("--contender", in: &arguments)
let runs = arguments.first.flatMap { Int($0) } ?? 5
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlited-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("bench.sqlite").path

let fetchRows = 200_000
let insertRows = 50_000
let lookups = 100_000
let names = (0..<10).map { "c\($0)" }
let columns = names.joined(separator: ", ")
let selectAll = "SELECT \(columns) FROM t"
let insertPositional =
    "INSERT INTO ins(\(columns)) VALUES (\(Array(repeating: "?", count: 10).joined(separator: ", ")))"
let insertNamed = "INSERT INTO ins(\(columns)) VALUES (\(names.map { ":" + $0 }.joined(separator: ", ")))"

let raw = RawC(path: path)
raw.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, \(names.map { "\($0) INTEGER" }.joined(separator: ", ")))")
raw.exec("CREATE TABLE ins(\(names.map { "\($0) INTEGER" }.joined(separator: ", ")))")
raw.exec("BEGIN")
raw.exec(
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(fetchRows)) "
        + "INSERT INTO t SELECT i, \(names.enumerated().map { "i * 10 + \($0.offset)" }.joined(separator: ", ")) FROM n"
)
raw.exec("COMMIT")

var generator = SystemRandomNumberGenerator()
let ids = (0..<lookups).map { _ in Int64.random(in: 1...Int64(fetchRows), using: &generator) }

let engine = try EnginePeer(path: path)
let grdb = try GRDBPeer(path: path)

print(
    "SQLite \(EnginePeer.libraryVersion), median of \(runs) interleaved runs after one warm-up, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores"
)
print("")
let workloads: [Workload] = [
    Workload(
        name: "fetch 200,000 rows × 10 ints, by index",
        contenders: [
            ("raw C", { raw.fetchAll(sql: selectAll) }),
            ("SQLiteEngine", { try engine.fetchByIndex(sql: selectAll) }),
            ("GRDB", { try grdb.fetchByIndex(sql: selectAll) }),
        ]
    ),
    Workload(
        name: "fetch 200,000 rows × 10 ints, by name",
        contenders: [
            ("raw C", { raw.fetchAll(sql: selectAll) }),
            ("SQLiteEngine", { try engine.fetchByName(sql: selectAll, names: names) }),
            ("GRDB", { try grdb.fetchByName(sql: selectAll, names: names) }),
        ]
    ),
    Workload(
        name: "insert 50,000 rows × 10 ints, one transaction, positional",
        contenders: [
            ("raw C", { raw.insert(rows: insertRows, sql: insertPositional) }),
            ("SQLiteEngine", { try engine.insertPositional(rows: insertRows, sql: insertPositional) }),
            ("GRDB", { try grdb.insertPositional(rows: insertRows, sql: insertPositional) }),
        ]
    ),
    Workload(
        name: "insert 50,000 rows × 10 ints, one transaction, named",
        contenders: [
            ("raw C", { raw.insert(rows: insertRows, sql: insertNamed) }),
            ("SQLiteEngine", { try engine.insertNamed(rows: insertRows, sql: insertNamed, names: names) }),
            ("GRDB", { try grdb.insertNamed(rows: insertRows, sql: insertNamed, names: names) }),
        ]
    ),
    Workload(
        name: "100,000 point selects by primary key, cached statement",
        contenders: [
            ("raw C", { raw.pointSelects(ids: ids) }),
            ("SQLiteEngine", { try engine.pointSelects(ids: ids) }),
            ("GRDB", { try grdb.pointSelects(ids: ids) }),
        ]
    ),
]
try Harness.run(
    workloads.filter { onlyWorkload == nil || $0.name.contains(onlyWorkload!) }.map { workload in
        var workload = workload
        workload.contenders.removeAll { onlyContender != nil && $0.name != onlyContender! }
        return workload
    },
    runs: runs
)
