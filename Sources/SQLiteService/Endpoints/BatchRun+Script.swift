import SQLiteEngine

extension BatchRun {
    /// Runs a `/batch` script statement by statement as SQLite's own parser splits it on `db`, each one a step of
    /// the batch: `execute` runs a statement into the step's output, `afterEach` follows every step that ran (given the run as it is then).
    ///
    /// A statement that failed after SQLite read it through (no such table or column, a policy denial) is stepped
    /// over with `continue_on_error`; past one SQLite cannot parse there is no way to find where the next one
    /// starts: the script ends there. A script without any statement is an invalid request.
    mutating func runScript(
        _ script: String,
        on db: Database,
        execute: (Statement, inout JSONWriter) throws(APIError) -> Void,
        afterEach: (BatchRun) throws(APIError) -> Void = { _ in }
    ) throws(APIError) {
        let statements = db.statements(in: script)
        var sawStatement = false
        while true {
            let next: Statement?
            do {
                next = try statements.next()
            } catch {
                if !sawStatement, (error as? DatabaseError)?.kind == .emptyStatement {
                    throw .invalidRequest("script holds no statement")
                }
                try step { (_: inout JSONWriter) throws(APIError) in throw APIError(error, db: db) }
                if continueOnError, statements.skipFailedStatement() {
                    sawStatement = true
                    continue
                }
                return
            }
            guard let statement = next else { break }
            sawStatement = true
            try step { (writer: inout JSONWriter) throws(APIError) in try execute(statement, &writer) }
            try afterEach(self)
            if stopped { return }
        }
        if !sawStatement { throw .invalidRequest("script holds no statement") }
    }
}
