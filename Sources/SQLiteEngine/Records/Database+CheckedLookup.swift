/// A table's point lookup statement, kept apart from the statement cache, with the compilation of it that is known
/// to match the schema version of the ``RecordTableCache`` holding it.
///
/// SQLite recompiles a prepared statement, counting it in `SQLITE_STMTSTATUS_REPREPARE`, whenever a step finds the
/// schema cookie in the database file differing from the one the statement was compiled with. So once a step in a
/// read transaction whose `PRAGMA schema_version` equals the cache's version has left the count at `n`, every later
/// step that leaves it at `n` ran against that same schema: no other statement (no `PRAGMA`, no table-valued
/// function) is needed to prove the cached table still describes it.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_stmtstatus_counter.html>
struct CheckedPointLookup {
    /// The table's ``RecordTable/pointLookupSQL`` (a lookup is only used for a table with the same text).
    let sql: String
    let statement: Statement
    /// The compilation count proven to belong to the cache's schema version; nil until proven.
    var provenCompilation: Int32?
}

extension Database {
    /// What ``fetchRecordCheckingSchema(_:key:)`` found.
    public enum CheckedRecord: Sendable, Equatable {
        /// The row, in ``RecordTable/defaultOutputColumns`` order.
        case row([DatabaseValue])
        /// No row has the key; the schema is the one `table` describes.
        case noRow
        /// The schema changed since `table` was read: look the table up again (``recordTable(named:)``).
        case schemaChanged
    }

    /// The row of `table` (as ``cachedRecordTable(named:)`` gave it) whose key is `key`, checking that `table`
    /// still describes the schema without a statement of its own.
    ///
    /// The first lookup of a table after its schema was read runs in a read transaction with `PRAGMA
    /// schema_version` (see ``CheckedPointLookup``); the following ones are one statement each — one read
    /// transaction, one snapshot — and answer ``CheckedRecord/schemaChanged`` when SQLite had to recompile it.
    ///
    /// - Throws: ``DatabaseError`` for a key of the wrong length or a failed statement (a dropped table, say).
    public func fetchRecordCheckingSchema(_ table: RecordTable, key: [DatabaseValue]) throws -> CheckedRecord {
        guard key.count == table.key.count else { throw DatabaseError.misuse("a key needs \(table.key.count) values") }
        // Taken out while it runs: a failure leaves no lookup behind, and the next request starts over.
        var lookup: CheckedPointLookup
        if let existing = recordTableCache.checkedLookups.removeValue(forKey: table.name),
            existing.sql == table.pointLookupSQL
        {
            lookup = existing
        } else {
            lookup = CheckedPointLookup(
                sql: table.pointLookupSQL,
                statement: try prepareSingle(sql: table.pointLookupSQL, persistent: true),
                provenCompilation: nil
            )
        }
        let record: CheckedRecord
        if let proven = lookup.provenCompilation {
            record = try lookup.statement.fetchCheckedRecord(table, key: key)
            guard lookup.statement.compilationCount == proven else { return .schemaChanged }
        } else {
            // The proof: the schema version and the step in one read transaction.
            let ownTransaction = !isInTransaction
            if ownTransaction { try beginTransaction(.deferred) }
            do {
                guard try int64(sql: "PRAGMA schema_version") == recordTableCache.schemaVersion else {
                    if ownTransaction { try commit() }
                    return .schemaChanged
                }
                record = try lookup.statement.fetchCheckedRecord(table, key: key)
                lookup.provenCompilation = lookup.statement.compilationCount
                if ownTransaction { try commit() }
            } catch {
                if ownTransaction && isInTransaction { try? rollback() }
                throw error
            }
        }
        recordTableCache.keep(lookup, for: table.name)
        return record
    }
}

extension Statement {
    /// One run of a point lookup: the row (the statement reset before returning), or ``Database/CheckedRecord/noRow``.
    fileprivate func fetchCheckedRecord(_ table: RecordTable, key: [DatabaseValue]) throws -> Database.CheckedRecord {
        defer { reset() }
        try bind(.positional(key))
        guard try step() else { return .noRow }
        return .row((0..<table.defaultOutputColumns.count).map { value(at: $0) })
    }
}
