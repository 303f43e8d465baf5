/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// Lookups are O(1); eviction scans the entries (O(capacity)), which only happens on a miss, next to the far larger
/// cost of preparing a statement.
struct StatementCache {
    private struct Entry {
        let statement: Statement
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
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
        if let entry = entries[sql] {
            if entry.statement.needsEviction || !entry.statement.isValid {
                entries[sql] = nil
            } else if !entry.statement.isInUse {
                entries[sql]!.lastUse = clock
                hits += 1
                return entry.statement
            }
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
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            // A statement evicted while a cursor still uses it stays alive through the cursor's reference.
            entries[oldest] = nil
        }
        entries[sql] = Entry(statement: statement, lastUse: clock)
    }

    mutating func remove(_ sql: String) {
        entries[sql] = nil
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}
