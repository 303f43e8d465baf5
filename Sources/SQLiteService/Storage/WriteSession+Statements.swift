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
        var sql = sql
        // Over the contiguous bytes, the word in a tuple: iterating `utf8` and an array made per call cost about
        // 1,200 instructions for a 40-byte statement (callgrind), this about 40.
        let word: (UInt8, UInt8, UInt8, UInt8) = (0x66, 0x61, 0x69, 0x6C)  // "fail"
        return sql.withUTF8 { bytes in
            guard bytes.count >= 4 else { return false }
            for start in 0...(bytes.count - 4) where bytes[start] | 0x20 == word.0 {
                // `| 0x20` lowercases ASCII letters; no other byte becomes one of these letters.
                if bytes[start + 1] | 0x20 == word.1 && bytes[start + 2] | 0x20 == word.2
                    && bytes[start + 3] | 0x20 == word.3
                {
                    return true
                }
            }
            return false
        }
    }
}
