extension SQLPolicy {
    /// The denial reason for a `VACUUM` statement (by its SQL text), or nil for any other statement.
    ///
    /// The authorizer refuses `VACUUM` through the `ATTACH` it makes, but only when it runs; inside a transaction
    /// (a group of group commit) SQLite fails it earlier with "cannot VACUUM from within a transaction" (400). So
    /// that the answer is the policy's 403 `SQLITE_AUTH` whether or not the request runs in a group, the executor
    /// refuses it by its first keyword, with the authorizer's reasons.
    static func vacuumDenial(_ sql: String) -> String? {
        var scanner = SQLKeywordScanner(sql)
        guard scanner.nextKeyword() == "VACUUM" else { return nil }
        // VACUUM [schema-name] [INTO filename]
        var next = scanner.nextKeyword()
        if next != nil, next != "INTO" { next = scanner.nextKeyword() }
        return next == "INTO" ? "ATTACH and VACUUM INTO are not allowed" : "ATTACH and VACUUM are not allowed"
    }
}
