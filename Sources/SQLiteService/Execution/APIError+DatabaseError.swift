import SQLiteEngine

extension APIError {
    /// Maps any error raised while running statements to the contract's error.
    ///
    /// An `SQLITE_AUTH` failure is explained with the policy's recorded reason
    /// for `db`; anything unexpected becomes `INTERNAL` (logged by the caller),
    /// never a message that could carry bound values or paths.
    init(_ error: any Error, db: Database?) {
        if let apiError = error as? APIError {
            self = apiError
            return
        }
        guard let error = error as? DatabaseError else {
            self = .internal("unexpected error")
            return
        }
        switch error.kind {
        case .binding:
            self = .bindError(error.message)
        case .timeout:
            self = .timeout("the statement time limit was reached")
        case .interrupted:
            self = .unavailable("the statement was interrupted because the server is stopping")
        case .multipleStatements:
            self = .multipleStatements()
        case .emptyStatement:
            self = .invalidRequest("sql holds no statement")
        case .poolTimeout:
            self = .unavailable("no database connection became free in time", retryAfter: 1)
        case .writerTimeout:
            self = .sqlite(name: "SQLITE_BUSY", code: ResultCode.SQLITE_BUSY.rawValue, message: error.message)
        case .misuse, .reentrancy:
            self = .internal()
        case .sqlite:
            // SQLite reports most denials as SQLITE_AUTH, but a denied function call (load_extension) as a plain
            // SQLITE_ERROR "not authorized to use function: …" (resolve.c); the contract wants 403 SQLITE_AUTH for
            // both, so such an error with a denial recorded by the policy is reported as SQLITE_AUTH.
            // SQLITE_SCHEMA too: when the parse that hit the denial also failed to find a name
            // (`Parse.checkSchema`) and the schema changed under the connection meanwhile (DDL on another
            // connection), sqlite3Prepare replaces the error with SQLITE_SCHEMA (prepare.c, `schemaIsValid`), and
            // it retries only once; under a stream of concurrent DDL the denial thus surfaces as SQLITE_SCHEMA.
            //
            // The record is taken whatever the error: a denial is recorded only by a prepare that then fails, so
            // it belongs to this error or to none, and must not be left to mislabel a later one.
            let denial = db.flatMap { PolicyRegistry.shared.state(for: $0)?.takeDenial() }
            let mayBeDenial =
                error.resultCode == .SQLITE_AUTH || error.resultCode == .SQLITE_SCHEMA
                || SQLPolicy.isFunctionDenial(error)
            if mayBeDenial, let reason = denial {
                self = .sqlite(
                    name: "SQLITE_AUTH",
                    code: ResultCode.SQLITE_AUTH.rawValue,
                    message: "denied by the SQL policy: \(reason)"
                )
                return
            }
            self = .sqlite(name: error.codeName, code: error.extendedResultCode.rawValue, message: error.message)
        }
    }
}
