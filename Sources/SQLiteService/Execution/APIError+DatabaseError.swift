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
        case .misuse, .reentrancy:
            self = .internal()
        case .sqlite:
            var message = error.message
            if error.resultCode == .SQLITE_AUTH, let db,
                let reason = PolicyRegistry.shared.state(for: db)?.takeDenial()
            {
                message = "denied by the SQL policy: \(reason)"
            } else if SQLPolicy.isFunctionDenial(error), let db,
                let reason = PolicyRegistry.shared.state(for: db)?.takeDenial()
            {
                // SQLite reports a denied function as a parse error (SQLITE_ERROR); it is a policy denial.
                self = .sqlite(name: "SQLITE_AUTH", code: 23, message: "denied by the SQL policy: \(reason)")
                return
            }
            self = .sqlite(name: error.codeName, code: error.extendedResultCode.rawValue, message: message)
        }
    }
}
