extension WriteSession {
    /// Runs `statements` in order and writes their results: `{"results": [...]}` when `asList`, else the one
    /// statement's result object. A failure stops there and carries the failing statement's `statement_index`
    /// (what it undoes is the caller's: a whole `/transaction`, or one `/transactions` step).
    ///
    /// The one loop of `/transaction` and of an interactive transaction's step.
    func runStatements(
        _ statements: [StatementRequest],
        asList: Bool,
        context: inout RequestContext
    ) throws(APIError) -> [UInt8] {
        var writer = JSONWriter()
        if asList {
            writer.beginObject()
            writer.key("results")
            writer.beginArray()
        }
        for (index, statement) in statements.enumerated() {
            do throws(APIError) {
                try run(statement, context: &context, into: &writer)
            } catch {
                var error = error
                error.statementIndex = index
                throw error
            }
        }
        if asList {
            writer.endArray()
            writer.endObject()
        }
        return writer.bytes
    }
}

extension WriteSession {
    /// Runs `body`, one client statement that commits on its own (a `/update`, a `/batch` statement), so that its
    /// failure keeps nothing, alone or in a group alike. SQLite undoes a failing statement by itself, except under
    /// the FAIL conflict resolution (`OR FAIL`, `ON CONFLICT FAIL`, `RAISE(FAIL, …)`), which keeps what the statement
    /// did before it failed — in autocommit mode, committed. A statement whose text (`sql`) or whose schema
    /// (``SQLiteEngine/Database/schemaMayFailPartWay``) mentions FAIL therefore runs atomically: in a transaction of
    /// its own, or a savepoint inside a group or transaction.
    func runWhole<T>(sql: String, _ body: (any WriteSession) throws(APIError) -> T) throws(APIError) -> T {
        guard Self.mentionsFail(sql) || schema.schemaMayFailPartWay else { return try body(self) }
        return try atomically(mode: .immediate, marksRolledBack: false, body)
    }

    /// Whether `sql` holds "fail" in any ASCII case (a keyword, or only a name or a string: then a savepoint too
    /// many, never one too few).
    static func mentionsFail(_ sql: String) -> Bool {
        let word: [UInt8] = Array("fail".utf8)
        var matched = 0
        for byte in sql.utf8 {
            let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if lower == word[matched] {
                matched += 1
                if matched == word.count { return true }
            } else {
                matched = lower == word[0] ? 1 : 0
            }
        }
        return false
    }
}
