import SQLiteEngine

/// The local storage's writer for the group committer: the pool's one writer connection, taken once per group,
/// whose `COMMIT` is one WAL fsync for the whole group.
struct LocalGroupWriter: GroupWriter {
    let pool: DatabasePool

    var checksDeferredConstraintsAtCommitOnly: Bool { false }

    func withUnit(
        waitingUntil limit: ContinuousClock.Instant?,
        _ body: (Database) -> Void
    ) throws(APIError)
        -> APIError?
    {
        do {
            try pool.write(waitingUntil: limit) { db in body(db) }
            return nil
        } catch let error as DatabaseError where error.kind == .writerTimeout {
            return APIError(error, db: nil)
        } catch {
            throw APIError(error, db: nil)
        }
    }

    func begin(_ db: Database) throws(APIError) {
        do {
            try db.beginTransaction(.immediate)
        } catch {
            throw APIError(error, db: db)
        }
    }

    func isInTransaction(_ db: Database) -> Bool {
        db.isInTransaction
    }

    func commit(_ db: Database) throws(APIError) {
        try db.commitOrRollBack()
    }

    func rollback(_ db: Database) {
        if db.isInTransaction { try? db.rollback() }
    }
}
