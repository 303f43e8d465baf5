/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// Lookups are O(1): the statement found last is checked first with one string comparison (a loop running the same
/// SQL compares two identical strings, which is nearly free), then the dictionary. The use order lives in each
/// statement (``Statement/cacheLastUse``), so a hit writes no dictionary entry. Eviction scans the entries
/// (O(capacity)), which only happens on a miss, next to the far larger cost of preparing a statement.
struct StatementCache {
    let capacity: Int
    private var entries: [String: Statement] = [:]
    /// The SQL and statement of the last hit or insertion; always also in `entries`.
    private var recent: (sql: String, statement: Statement)?
    private var clock: UInt64 = 0
    private(set) var hits = 0
    private(set) var misses = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int {
        entries.count
    }

    /// A cached statement for `sql` that is free to use, or `nil` (counted as a miss).
    ///
    /// A statement in use (lent to a cursor, or stepping) is not returned: the caller prepares another one. A
    /// statement whose bind or step failed is dropped.
    mutating func lookup(_ sql: String) -> Statement? {
        clock &+= 1
        let statement: Statement
        let isRecent: Bool
        if let recent, recent.sql == sql {
            statement = recent.statement
            isRecent = true
        } else if let entry = entries[sql] {
            statement = entry
            isRecent = false
        } else {
            misses += 1
            return nil
        }
        if statement.needsEviction || !statement.isValid {
            remove(sql)
        } else if !statement.isInUse {
            statement.cacheLastUse = clock
            if !isRecent {
                recent = (sql, statement)
            }
            hits += 1
            return statement
        }
        misses += 1
        return nil
    }

    /// Whether `sql` has an entry, even one in use.
    func contains(_ sql: String) -> Bool {
        entries[sql] != nil
    }

    /// Adds a newly prepared statement, evicting the least recently used entry when full.
    mutating func insert(_ statement: Statement, for sql: String) {
        guard capacity > 0 else { return }
        if entries[sql] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.cacheLastUse < $1.value.cacheLastUse })?.key
        {
            // A statement evicted while a cursor still uses it stays alive through the cursor's reference.
            remove(oldest)
        }
        statement.cacheLastUse = clock
        entries[sql] = statement
        recent = (sql, statement)
    }

    mutating func remove(_ sql: String) {
        entries[sql] = nil
        if recent?.sql == sql {
            recent = nil
        }
    }

    mutating func removeAll() {
        entries.removeAll()
        recent = nil
    }
}
