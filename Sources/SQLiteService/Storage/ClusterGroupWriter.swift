import DqliteCluster
import SQLiteEngine

/// The cluster storage's writer for the group committer: this node's write copy of the leader's schema, held for
/// one group, and one leader transaction (`BEGIN IMMEDIATE` … `COMMIT`, one Raft entry) for the group's requests.
///
/// The writes a node receives while its previous group is in flight thus reach the leader as one transaction,
/// instead of one Raft round each (issue #26). `BEGIN IMMEDIATE` takes the leader's write lock before any request
/// runs: while another node's group holds it, the BEGIN alone is asked again after a short pause
/// (``DqliteCluster/ClusterClient/beginTransaction(immediate:deadline:)``) and no request's work is lost to
/// `SQLITE_BUSY`.
struct ClusterGroupWriter: GroupWriter {
    let storage: ClusterStorage

    /// The wire cannot ask for SQLite's count of deferred foreign key violations at a savepoint's end.
    var checksDeferredConstraintsAtCommitOnly: Bool { true }

    /// The leader has no local gate to wait at (`limit` is not used): an interactive transaction holding the
    /// leader's write lock is waited for at the group's `BEGIN IMMEDIATE`, within the requests' limits.
    func withUnit(
        waitingUntil limit: ContinuousClock.Instant?,
        _ body: (ClusterGroupTransaction) -> Void
    )
        throws(APIError) -> APIError?
    {
        // Held now, checked once the group's requests are taken (``ClusterGroupTransaction/schema()``).
        try storage.writeSchema.withHeldSchema(refreshingFrom: storage.reader) { (held) throws(APIError) in
            let unit = ClusterGroupTransaction(schema: held, writer: storage.writer)
            // Whatever happened, the group's connection goes back to the pool (or is closed).
            defer { unit.end() }
            body(unit)
        }
        return nil
    }

    func begin(_ unit: ClusterGroupTransaction) throws(APIError) {
        try unit.begin()
    }

    func isInTransaction(_ unit: ClusterGroupTransaction) -> Bool {
        unit.isOpen
    }

    func commit(_ unit: ClusterGroupTransaction) throws(APIError) {
        try unit.commit()
    }

    func rollback(_ unit: ClusterGroupTransaction) {
        unit.end()
    }
}

/// One group's transaction on the cluster's leader, with the write copy of the schema the group holds.
///
/// Not `Sendable`: used by the group's leader thread only (see ``GroupWriter``).
final class ClusterGroupTransaction {
    /// The write copy of the leader's schema, held by the group and checked on first use (``schema()``).
    private let heldSchema: SchemaShadow.HeldSchema
    let writer: ClusterClient
    /// The leader transaction once begun; nil before, and after its end.
    private(set) var transaction: ClusterTransaction?
    /// The savepoint of the last request that succeeded, released on the leader together with the next request's
    /// `SAVEPOINT` (one EXEC_SQL of both), or by the `COMMIT`: a round trip less per request.
    private var pendingRelease: String?

    init(schema: SchemaShadow.HeldSchema, writer: ClusterClient) {
        self.heldSchema = schema
        self.writer = writer
    }

    /// The write copy of the schema, checked against the leader's schema version on the first call: after the
    /// group's `BEGIN IMMEDIATE` (``begin()``), or at a lone request's first statement — after the group's requests
    /// were taken either way, so a table another node created before a request was sent is in the copy.
    func schema() throws(APIError) -> Database {
        try heldSchema.database()
    }

    /// Whether the group's leader transaction is open (not broken, not rolled back by SQLite).
    var isOpen: Bool {
        guard let transaction else { return false }
        return transaction.isUsable && transaction.isActive
    }

    /// `BEGIN IMMEDIATE` on a leader connection, after ending a transaction SQLite or the connection ended.
    func begin() throws(APIError) {
        end()
        pendingRelease = nil
        do {
            transaction = try writer.beginTransaction(immediate: true)
        } catch {
            throw APIError(cluster: error, isWrite: true)
        }
        // The leader's write lock is the group's now: the schema the check finds stays until the COMMIT.
        _ = try schema()
    }

    /// COMMIT: one Raft entry for the group. A COMMIT the leader refused is `rolled_back`; one whose answer was
    /// lost is 503 `UNAVAILABLE` (outcome unknown), as for a single write.
    func commit() throws(APIError) {
        guard let transaction else { throw .internal("the group's transaction is not open") }
        self.transaction = nil
        // COMMIT releases every savepoint, the last request's included.
        pendingRelease = nil
        do {
            try writer.commit(transaction)
        } catch {
            var failure = APIError(cluster: error, isWrite: true)
            if error.kind == .failure { failure.rolledBack = true }
            throw failure
        }
    }

    /// Rolls back the open transaction, if any, and gives its connection back.
    func end() {
        pendingRelease = nil
        guard let transaction else { return }
        self.transaction = nil
        writer.rollback(transaction)
    }

    /// Runs one request's work: inside the group's transaction, in a savepoint of its own (reserved name,
    /// ``SavepointNames``) on the leader and on the copy of the schema, released when `body` succeeded (on the
    /// leader with the next request's `SAVEPOINT`, or by the `COMMIT`) and rolled back otherwise, so that only this
    /// request's changes are undone; outside one (a lone request), in autocommit mode as a single write.
    ///
    /// A request of one statement (``StorageWrite/isOneStatement``) runs without a savepoint: a failing statement is
    /// undone by SQLite itself (one that may fail part way takes a savepoint of its own, ``WriteSession/runWhole(sql:_:)``),
    /// and one that rolls the whole transaction back is noticed by its transaction.
    func committingAlone<T>(
        deadline: ContinuousClock.Instant,
        isOneStatement: Bool = false,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        let schema = try schema()
        guard let transaction, isOpen else {
            return try body(
                ClusterWriteSession(schema: schema, writer: writer, target: .client(writer), deadline: deadline)
            )
        }
        let target = ClusterTarget.transaction(transaction)
        if isOneStatement {
            let value = try body(
                ClusterWriteSession(schema: schema, writer: writer, target: target, deadline: deadline, grouped: true)
            )
            guard isOpen else { throw APIError.transactionLost }
            return value
        }
        let name = SavepointNames.unit
        do {
            try schema.beginSavepoint(name)
        } catch {
            throw APIError(error, db: schema)
        }
        do throws(APIError) {
            let release = pendingRelease.map { "RELEASE \($0); " } ?? ""
            pendingRelease = nil
            _ = try target.execScript(release + "SAVEPOINT \(name)")
            let value = try body(
                ClusterWriteSession(
                    schema: schema,
                    writer: writer,
                    target: target,
                    deadline: deadline,
                    grouped: true
                )
            )
            guard isOpen else { throw APIError.transactionLost }
            pendingRelease = name
            try? schema.releaseSavepoint(name)
            return value
        } catch {
            if isOpen {
                _ = try? target.execScript("ROLLBACK TO \(name); RELEASE \(name)")
            }
            try? schema.rollbackToSavepoint(name)
            try? schema.releaseSavepoint(name)
            throw error
        }
    }
}
