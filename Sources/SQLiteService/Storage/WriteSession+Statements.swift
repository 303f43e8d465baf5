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
