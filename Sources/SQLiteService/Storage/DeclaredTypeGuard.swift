import SQLiteEngine

/// Keeps out of the cluster the column types that make Debian's dqlite abort the whole process.
///
/// dqlite sends the values of a result column *declared* `DATETIME`, `DATE` or `TIMESTAMP` as its time types and
/// of one declared `BOOLEAN` as its boolean type, and its build asserts the value fits: a REAL or BLOB in such a
/// time column, or anything but an INTEGER (or NULL) in a `BOOLEAN` one, aborts the node, and with it this process.
/// Values come from SQL as much as from parameters, so checking bound values cannot keep them out; the cluster
/// backend instead refuses to create such columns (400 `INVALID_REQUEST`): a statement that changes the schema is
/// applied to the copy of the schema first, and refused when a table then has a column declared so. Declare
/// such columns `TEXT`, `INTEGER` or `NUMERIC` instead. (A result column gets a declared type only from a table's
/// column, through views and subqueries alike, so no query can meet one.)
enum DeclaredTypeGuard {
    /// The declared types dqlite serves with its own types (compared as dqlite does: whole, case-insensitively).
    static let refusedTypes = ["DATETIME", "DATE", "TIMESTAMP", "BOOLEAN"]

    private static let savepoint = "sqlited_schema_copy"

    /// Runs `sql` (a statement that changes the schema) on `db` in a savepoint, and refuses it, undone, when a
    /// table then declares a refused type. On success the savepoint stays open: ``keep(on:)`` or ``undo(on:)``
    /// ends it once the leader answered.
    static func applyChecked(_ sql: String, on db: Database) throws(APIError) {
        do {
            try db.beginSavepoint(savepoint)
        } catch {
            throw APIError(error, db: db)
        }
        let found: String?
        do {
            try db.execute(sql: sql)
            let list = refusedTypes.map { "'\($0)'" }.joined(separator: ", ")
            found = try db.string(
                sql: """
                    SELECT m.name || '.' || c.name || ' ' || c.type FROM sqlite_master AS m, \
                    pragma_table_xinfo(m.name) AS c WHERE m.type = 'table' AND upper(c.type) IN (\(list)) LIMIT 1
                    """
            )
        } catch {
            undo(on: db)
            throw APIError(error, db: db)
        }
        if let found {
            undo(on: db)
            throw .invalidRequest(
                "cluster mode refuses columns declared \(refusedTypes.joined(separator: ", ")) (\(found)): "
                    + "dqlite cannot serve every value of such a column; declare it TEXT, INTEGER or NUMERIC"
            )
        }
    }

    /// Keeps the change (the leader made it too).
    static func keep(on db: Database) {
        try? db.releaseSavepoint(savepoint)
    }

    /// Undoes the change (the leader refused it, or it was refused here).
    static func undo(on db: Database) {
        try? db.rollbackToSavepoint(savepoint)
        try? db.releaseSavepoint(savepoint)
    }
}
