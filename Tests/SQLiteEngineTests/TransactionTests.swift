import Testing

@testable import SQLiteEngine

/// Transactions and savepoints.
@Suite struct TransactionTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
        try db.execute(sql: "CREATE TABLE t(x)")
    }

    private func count() throws -> Int64 {
        try db.int64(sql: "SELECT count(*) FROM t") ?? -1
    }

    /// Checks begin/commit/rollback for each kind, and isInTransaction.
    @Test(arguments: [Database.TransactionKind.deferred, .immediate, .exclusive])
    func transaction_beginCommitRollback(kind: Database.TransactionKind) throws {
        #expect(db.isInTransaction == false)
        try db.beginTransaction(kind)
        #expect(db.isInTransaction)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.rollback()
        #expect(db.isInTransaction == false)
        #expect(try count() == 0)
        try db.beginTransaction(kind)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.commit()
        #expect(db.isInTransaction == false)
        #expect(try count() == 1)
    }

    /// Checks that BEGIN inside a transaction fails with an error.
    @Test func beginTransaction_failsWhenAlreadyInTransaction() throws {
        try db.beginTransaction()
        let error = try #require(databaseError { try db.beginTransaction() })
        #expect(error.message.contains("within a transaction"))
        #expect(db.isInTransaction)
        try db.rollback()
    }

    /// Checks that transaction {} commits on return and rolls back on throw.
    @Test func transaction_commitsOrRollsBack() throws {
        let value = try db.transaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return 42
        }
        #expect(value == 42)
        #expect(try count() == 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try db.transaction(.immediate) { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                throw Failure()
            }
        }
        #expect(try count() == 1)
        #expect(db.isInTransaction == false)
    }

    /// Checks that a failed commit (deferred foreign key violation) rolls back and throws.
    @Test func transaction_failedCommitRollsBack() throws {
        try db.executeScript(
            """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(p REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """
        )
        let error = try #require(
            databaseError {
                try db.transaction { db in
                    try db.execute(sql: "INSERT INTO child VALUES (7)")
                }
            }
        )
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
        #expect(db.isInTransaction == false)
        #expect(try db.int64(sql: "SELECT count(*) FROM child") == 0)
    }

    /// Checks nested savepoints: an inner one rolled back inside an outer one that commits.
    @Test func inSavepoint_nestsAndRollsBackInnerOnly() throws {
        struct Failure: Error {}
        try db.transaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.inSavepoint { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                #expect(throws: Failure.self) {
                    try db.inSavepoint { db in
                        try db.execute(sql: "INSERT INTO t VALUES (3)")
                        throw Failure()
                    }
                }
                try db.inSavepoint { db in
                    try db.execute(sql: "INSERT INTO t VALUES (4)")
                }
            }
        }
        #expect(try db.fetchAll(sql: "SELECT x FROM t ORDER BY x").map { $0.int64(at: 0) } == [1, 2, 4])
    }

    /// Checks that a savepoint outside a transaction commits on release and undoes everything on throw.
    @Test func inSavepoint_outsideTransaction() throws {
        try db.inSavepoint { db in
            #expect(db.isInTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        #expect(db.isInTransaction == false)
        #expect(try count() == 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try db.inSavepoint { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                throw Failure()
            }
        }
        #expect(db.isInTransaction == false)
        #expect(try count() == 1)
    }

    /// Checks named savepoints, including a name that needs quoting.
    @Test func savepoints_byName() throws {
        try db.beginSavepoint("outer \"one\"")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.beginSavepoint("inner")
        try db.execute(sql: "INSERT INTO t VALUES (2)")
        try db.rollbackToSavepoint("inner")
        try db.releaseSavepoint("inner")
        try db.releaseSavepoint("outer \"one\"")
        #expect(try count() == 1)
        #expect(throws: DatabaseError.self) { try db.releaseSavepoint("nope") }
    }
}
