/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// Lookups are O(1): the last few statements found (``recentCount``) are checked first, each with one string
/// comparison, then the dictionary. A request that runs a few statements in turn (a write, then the server's own
/// statements for its idempotency key) finds each among them; a string compared with itself (the server's
/// statements, made once) or with one of another length costs next to nothing, where hashing the text for the
/// dictionary costs about ten instructions a byte. The use order lives in each statement
/// (``Statement/cacheLastUse``), so a hit writes no dictionary entry. Eviction scans the entries (O(capacity)), which
/// only happens on a miss, next to the far larger cost of preparing a statement.
struct StatementCache {
    let capacity: Int
    private var entries: [String: Statement] = [:]
    /// The SQL and statement of the last few hits and insertions, the oldest replaced first; each also in
    /// `entries`.
    private var recent: [(sql: String, statement: Statement)] = []
    private var nextRecent = 0
    static var recentCount: Int { 4 }
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
        // The byte count first: O(1) for native strings, where `==` of two different strings is not.
        let length = sql.utf8.count
        if let index = recent.firstIndex(where: { $0.sql.utf8.count == length && $0.sql == sql }) {
            statement = recent[index].statement
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
                remember(sql, statement)
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
        recent.removeAll { $0.sql == sql }
        remember(sql, statement)
    }

    mutating func remove(_ sql: String) {
        entries[sql] = nil
        recent.removeAll { $0.sql == sql }
    }

    mutating func removeAll() {
        entries.removeAll()
        recent.removeAll()
    }

    /// Puts `sql` among the recent entries, in place of the oldest when they are full.
    private mutating func remember(_ sql: String, _ statement: Statement) {
        if recent.count < Self.recentCount {
            recent.append((sql, statement))
        } else {
            nextRecent %= Self.recentCount
            recent[nextRecent] = (sql, statement)
            nextRecent += 1
        }
    }
}
