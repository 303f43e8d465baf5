internal import CSQLite

/// Holds the Swift authorizer for SQLite's user-data pointer; the database keeps it alive while installed.
final class AuthorizerBox {
    let authorizer: (AuthorizerContext) -> AuthorizerDecision

    init(_ authorizer: @escaping (AuthorizerContext) -> AuthorizerDecision) {
        self.authorizer = authorizer
    }
}

extension Database {
    /// Installs (or removes, with `nil`) the authorizer consulted while statements are prepared.
    ///
    /// Installing an authorizer invalidates every prepared statement (SQLite re-prepares them, consulting the new
    /// authorizer) and empties the statement cache, so install it once per connection, in
    /// ``Configuration/prepareDatabase``. A denied statement fails to prepare with `SQLITE_AUTH`. Statements held
    /// outside the cache keep the decisions they were compiled with when the authorizer is removed.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
    public func setAuthorizer(_ authorizer: ((AuthorizerContext) -> AuthorizerDecision)?) {
        guard let handle = connection?.handle else { return }
        // SQLite expires prepared statements when an authorizer is installed but not when it is removed, and
        // statements compiled under `.ignore` keep that decision; dropping the cache makes both cases take effect.
        statementCache.removeAll()
        guard let authorizer else {
            sqlite3_set_authorizer(handle, nil, nil)
            self.authorizer = nil
            return
        }
        let box = AuthorizerBox(authorizer)
        sqlite3_set_authorizer(
            handle,
            { context, action, arg1, arg2, arg3, arg4 in
                let box = Unmanaged<AuthorizerBox>.fromOpaque(context!).takeUnretainedValue()
                let decision = box.authorizer(
                    AuthorizerContext(
                        action: AuthorizerAction(rawValue: action),
                        arg1: arg1.map { String(cString: $0) },
                        arg2: arg2.map { String(cString: $0) },
                        arg3: arg3.map { String(cString: $0) },
                        arg4: arg4.map { String(cString: $0) }
                    )
                )
                return decision.sqliteValue
            },
            Unmanaged.passUnretained(box).toOpaque()
        )
        // Kept after sqlite3_set_authorizer replaced the previous callback, so the old box outlives its last use.
        self.authorizer = box
    }

    /// Sets a run-time limit and returns the previous value (a value above the compile-time maximum is lowered
    /// to it; a negative value only reads).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/limit.html>
    @discardableResult
    public func setLimit(_ limit: Limit, _ value: Int32) -> Int32 {
        guard let handle = connection?.handle else { return -1 }
        return sqlite3_limit(handle, limit.sqliteValue, value)
    }

    /// The current value of a run-time limit (-1 when the database is closed).
    public func limit(_ limit: Limit) -> Int32 {
        guard let handle = connection?.handle else { return -1 }
        return sqlite3_limit(handle, limit.sqliteValue, -1)
    }
}
