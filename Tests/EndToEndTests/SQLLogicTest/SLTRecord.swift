/// One record of a sqllogictest script.
///
/// Format reference: <https://www.sqlite.org/sqllogictest/doc/trunk/about.wiki> and the corpus README.
struct SLTRecord: Equatable, Sendable {
    /// 1-based line number of the record's command line (`statement ok`, `query II rowsort`, …).
    var line: Int
    /// The `skipif` / `onlyif` lines that precede the command, in order.
    var conditions: [SLTCondition]
    var command: SLTCommand

    /// Whether the record runs on the engine named `engine` (compared case-insensitively, as sqllogictest does).
    func applies(toEngine engine: String) -> Bool {
        conditions.allSatisfy { $0.allows(engine: engine) }
    }

    /// The SQL text of a statement or query record, else nil.
    var sql: String? {
        switch command {
        case .statement(_, let sql): sql
        case .query(let query): query.sql
        case .hashThreshold, .halt: nil
        }
    }
}

/// A `skipif ENGINE` or `onlyif ENGINE` line.
enum SLTCondition: Equatable, Sendable {
    case skipIf(engine: String)
    case onlyIf(engine: String)

    func allows(engine: String) -> Bool {
        switch self {
        case .skipIf(let name): name.lowercased() != engine.lowercased()
        case .onlyIf(let name): name.lowercased() == engine.lowercased()
        }
    }
}

/// What a record asks for.
enum SLTCommand: Equatable, Sendable {
    /// `statement ok` / `statement error` followed by SQL (possibly several statements).
    case statement(expectsError: Bool, sql: String)
    case query(SLTQuery)
    /// `hash-threshold N`: results with more than N values are compared by hash (0: never).
    case hashThreshold(Int)
    /// `halt`: stop processing the file.
    case halt
}

/// A `query` record.
struct SLTQuery: Equatable, Sendable {
    /// One letter per result column.
    var columnTypes: [SLTColumnType]
    var sortMode: SLTSortMode
    /// Queries sharing a label must produce the same result hash.
    var label: String?
    var sql: String
    /// The lines after `----` (empty when the record has none).
    var expectedLines: [String]

    /// The expected block read as a hash line `N values hashing to H`, when it is one.
    var expectedHash: (count: Int, md5: String)? {
        guard expectedLines.count == 1 else { return nil }
        return SLTQuery.parseHashLine(expectedLines[0])
    }

    static func parseHashLine(_ line: String) -> (count: Int, md5: String)? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 5, parts[1] == "values", parts[2] == "hashing", parts[3] == "to",
            let count = Int(parts[0]), parts[4].count == 32,
            parts[4].allSatisfy({ $0.isHexDigit })
        else { return nil }
        return (count, parts[4].lowercased())
    }
}

/// A result column's declared type letter, which decides how its values are printed.
enum SLTColumnType: Character, Equatable, Sendable {
    /// `I`: printed as a (32-bit) integer.
    case integer = "I"
    /// `T`: printed as text.
    case text = "T"
    /// `R`: printed as a real with three decimals.
    case real = "R"
}

/// How result values are ordered before comparing.
enum SLTSortMode: String, Equatable, Sendable {
    case nosort
    /// Rows sorted as lists of printed values.
    case rowsort
    /// All values sorted independently.
    case valuesort
}
