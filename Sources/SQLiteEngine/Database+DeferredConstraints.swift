internal import CSQLite

extension Database {
    /// Whether the open transaction holds foreign key violations that are still unresolved
    /// (`SQLITE_DBSTATUS_DEFERRED_FKS`); false outside a transaction.
    ///
    /// SQLite reports such a violation only when the outermost transaction commits. A caller that runs several
    /// independent units of work in one transaction (group commit) checks this before releasing each unit's
    /// savepoint: rolling back to a savepoint restores the count it had when the savepoint was opened.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_dbstatus_options.html>
    public var hasDeferredForeignKeyViolations: Bool {
        guard let handle = connection?.handle else { return false }
        var current: Int32 = 0
        var highest: Int32 = 0
        guard sqlite3_db_status(handle, SQLITE_DBSTATUS_DEFERRED_FKS, &current, &highest, 0) == SQLITE_OK else {
            return false
        }
        return current != 0
    }
}
