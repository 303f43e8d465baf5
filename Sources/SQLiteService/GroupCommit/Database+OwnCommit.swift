import SQLiteEngine

extension Database {
    /// Runs `body` as a unit that commits on its own: in autocommit mode it simply runs (each statement commits by
    /// itself); inside a group's transaction it runs in a savepoint of its own, which is released only when `body`
    /// succeeded and left no unresolved deferred foreign key violation, and otherwise rolled back and released, so
    /// that only this unit's changes are undone.
    ///
    /// A deferred foreign key violation fails the unit with `SQLITE_CONSTRAINT_FOREIGNKEY`, as the unit's own
    /// `COMMIT` would have outside a group (inside a group the violation would only show at the group's `COMMIT`,
    /// failing every request of it).
    func committingAlone<T>(_ body: () throws(APIError) -> T) throws(APIError) -> T {
        guard isInTransaction else { return try body() }
        return try inRequestSavepoint(checkingDeferredForeignKeys: true, body)
    }

    /// Runs one request's work inside the open transaction, in a savepoint of its own (the reserved
    /// ``SavepointNames/unit``): released when `body` succeeded — and, when `checkingDeferredForeignKeys`, left no
    /// unresolved deferred foreign key violation (`SQLITE_CONSTRAINT_FOREIGNKEY` otherwise) —, else rolled back to
    /// and released, so that only this request's statements are undone. A group's request checks the deferred
    /// keys here; an interactive transaction's leaves them to its `COMMIT`.
    func inRequestSavepoint<T>(
        checkingDeferredForeignKeys: Bool,
        _ body: () throws(APIError) -> T
    ) throws(APIError) -> T {
        let name = SavepointNames.unit
        do {
            try beginSavepoint(name)
        } catch {
            throw APIError(error, db: self)
        }
        do throws(APIError) {
            let result = try body()
            guard isInTransaction else { throw APIError.transactionLost }
            if checkingDeferredForeignKeys, hasDeferredForeignKeyViolations {
                throw APIError.deferredForeignKeyViolation
            }
            do {
                try releaseSavepoint(name)
            } catch {
                throw APIError(error, db: self)
            }
            return result
        } catch {
            // The savepoint is gone when SQLite rolled the whole transaction back on its own (an interrupted or
            // failed write): the group, or the interactive transaction, notices that the transaction ended.
            if isInTransaction {
                try? rollbackToSavepoint(name)
                try? releaseSavepoint(name)
            }
            throw error
        }
    }
}

extension Database {
    /// `COMMIT` (durable once it returns, with `synchronous=FULL`); when it fails, the transaction is rolled back if
    /// still open and the error says so (`rolled_back`). A group's commit and an interactive transaction's both.
    func commitOrRollBack() throws(APIError) {
        do {
            try commit()
        } catch {
            var failure = APIError(error, db: self)
            failure.rolledBack = true
            if isInTransaction { try? rollback() }
            throw failure
        }
    }
}

extension APIError {
    /// What SQLite answers when a transaction with an unresolved deferred foreign key violation commits.
    static var deferredForeignKeyViolation: APIError {
        .sqlite(name: "SQLITE_CONSTRAINT_FOREIGNKEY", code: 787, message: "FOREIGN KEY constraint failed")
    }

    /// A unit whose work SQLite rolled back together with the group's transaction, although it did not fail itself.
    static var transactionLost: APIError {
        var error = APIError.sqlite(
            name: "SQLITE_ABORT_ROLLBACK",
            code: 516,
            message: "a statement failed and SQLite rolled back the request's work with it"
        )
        error.rolledBack = true
        return error
    }
}
