/// The tables looked up by ``Database/recordTable(named:)``, for one schema version.
struct RecordTableCache {
    var schemaVersion: Int64 = -1
    /// Keyed by the name asked for, ASCII-lowercased; nil caches "no such table".
    var tables: [String: RecordTable?] = [:]
    /// Point lookups of ``Database/fetchRecordCheckingSchema(_:key:)``, keyed by the table's stored name.
    var checkedLookups: [String: CheckedPointLookup] = [:]

    /// The most entries `tables` and `checkedLookups` hold each: names come from clients (a name that is no table
    /// is cached too), so without a bound every name ever asked for would stay until the next schema change. Past
    /// it the map starts over, which costs one schema read per table asked for again.
    static let capacity = 256

    /// Caches `table` for `key`, starting over when full.
    mutating func cache(_ table: RecordTable?, for key: String) {
        if tables.count >= Self.capacity { tables.removeAll(keepingCapacity: true) }
        tables[key] = .some(table)
    }

    /// Keeps `lookup` for its table, starting over when full (the dropped statements are finalized).
    mutating func keep(_ lookup: CheckedPointLookup, for tableName: String) {
        if checkedLookups.count >= Self.capacity { checkedLookups.removeAll(keepingCapacity: true) }
        checkedLookups[tableName] = lookup
    }
}

extension Database {
    /// The table called `name` (matched ignoring ASCII case, as SQLite matches names), or nil when there is no such
    /// table; views, virtual tables and SQLite's own `sqlite_` tables are not record tables.
    ///
    /// Looked up from SQLite itself (`sqlite_schema`, `pragma_table_info`) and cached on this connection until the
    /// schema changes: each call reads `PRAGMA schema_version`, which any schema change (on any connection, a
    /// migration, a `CREATE TABLE` through another writer) increments.
    public func recordTable(named name: String) throws -> RecordTable? {
        let version = try int64(sql: "PRAGMA schema_version") ?? 0
        if recordTableCache.schemaVersion != version {
            recordTableCache = RecordTableCache(schemaVersion: version)
        }
        let cacheKey = Self.recordTableCacheKey(name)
        if let cached = recordTableCache.tables[cacheKey] {
            return cached
        }
        let table = try storedRecordTableName(name).flatMap { stored in
            try tableInfo(stored).map { RecordTable(name: stored, columns: $0) }
        }
        recordTableCache.cache(table, for: cacheKey)
        return table
    }

    /// The table called `name` as this connection last read it, without asking SQLite whether the schema changed
    /// since; nil when it is not cached. For ``fetchRecordCheckingSchema(_:key:)``, which finds out while it reads.
    public func cachedRecordTable(named name: String) -> RecordTable? {
        recordTableCache.tables[Self.recordTableCacheKey(name)] ?? nil
    }

    /// ASCII case only, as SQLite folds names: `É` and `é` may be two tables.
    private static func recordTableCacheKey(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Every record table, in schema order.
    public func recordTables() throws -> [RecordTable] {
        let names = try fetchAll(sql: Self.recordTableQuery + " ORDER BY rowid").compactMap { $0.string(at: 0) }
        return try names.compactMap { try recordTable(named: $0) }
    }

    private func storedRecordTableName(_ name: String) throws -> String? {
        try string(sql: Self.recordTableQuery + " AND name = ?1 COLLATE NOCASE", arguments: [.text(name)])
    }

    /// Ordinary tables: not views, not virtual tables, not SQLite's own.
    private static let recordTableQuery = """
        SELECT name FROM sqlite_schema
        WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
        """
}
