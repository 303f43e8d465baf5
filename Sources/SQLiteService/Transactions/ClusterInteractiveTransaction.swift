import DqliteCluster
import SQLiteEngine
import Synchronization

/// An interactive transaction on the cluster: one leader connection held from its `BEGIN` to its end
/// (``ClusterClient/openTransaction(_:)``), through the writing client, or the read-only one for `read_only` (its
/// connections refuse writes). Each request's statements are checked on this node's copy of the schema and run
/// on that connection, in a savepoint of their own for a write transaction.
///
/// Other writers meet the leader's write lock while a write transaction holds it (dqlite runs one at a time) and
/// try again until their time limit: 503 `SQLITE_BUSY`. A leader lost mid-transaction takes the transaction with
/// it (dqlite replicates a transaction at its COMMIT only): the request that finds it answers 503 `UNAVAILABLE`
/// with `"transaction_open": false`, and the ID is then unknown (404).
///
/// `@unchecked Sendable`: `transaction` (not `Sendable`) is used by one request at a time, which the registry's
/// busy flag (a `Mutex`) orders, and by ``rollback()`` only once no request uses it (``TransactionRegistry``) or by
/// the request that holds it.
final class ClusterInteractiveTransaction: TransactionHandle, @unchecked Sendable {
    private let storage: ClusterStorage
    private let transaction: ClusterTransaction
    let isReadOnly: Bool
    private let open = Atomic<Bool>(true)

    /// Opens the transaction on the leader: `BEGIN IMMEDIATE` (or `BEGIN EXCLUSIVE`, `BEGIN DEFERRED`) through the
    /// writing client, tried again while another transaction holds the write lock, until `waitLimit`; `BEGIN` and a
    /// read (which takes the snapshot) through the read-only client for `read_only`.
    init(
        storage: ClusterStorage,
        mode: TransactionOpenRequest.Mode,
        waitLimit: ContinuousClock.Instant
    ) throws(APIError) {
        self.storage = storage
        isReadOnly = mode == .readOnly
        let client = isReadOnly ? storage.reader : storage.writer
        let beginSQL = mode.writeMode?.beginSQL ?? "BEGIN"
        let isReadOnly = isReadOnly
        transaction = try BusyRetry.run(until: waitLimit) { () throws(APIError) -> ClusterTransaction in
            do throws(ClusterError) {
                let transaction = try client.openTransaction(beginSQL)
                if isReadOnly {
                    do throws(ClusterError) {
                        _ = try transaction.query("SELECT count(*) FROM sqlite_master")
                    } catch {
                        transaction.rollback()
                        throw error
                    }
                }
                return transaction
            } catch {
                throw APIError(cluster: error, isWrite: !isReadOnly)
            }
        }
    }

    var isOpen: Bool { open.load(ordering: .acquiring) }

    func perform<T>(
        until deadline: ContinuousClock.Instant,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard isOpen else { throw APIError.transactionLost }
        let shadow = isReadOnly ? storage.readSchema : storage.writeSchema
        let client = isReadOnly ? storage.reader : storage.writer
        // Over when the connection broke, or when SQLite rolled the transaction back under a statement.
        defer { if !transaction.isUsable || !transaction.isActive { open.store(false, ordering: .releasing) } }
        return try shadow.withSchema(refreshingFrom: client) { db throws(APIError) in
            let session = ClusterWriteSession(
                schema: db,
                writer: storage.writer,
                target: .transaction(transaction),
                deadline: deadline
            )
            if isReadOnly { return try body(session) }
            // The request's savepoint: a failure undoes its statements only.
            return try ClusterTarget.transaction(transaction).atomically { _ throws(APIError) in try body(session) }
        }
    }

    func commit(
        until deadline: ContinuousClock.Instant,
        _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
    ) throws(APIError) -> WriteAnswer {
        guard isOpen else { throw APIError.transactionLost }
        if isReadOnly {
            rollback()
            return WriteAnswer(response: SQLiteService.jsonResponse(TransactionBodies.committed), keepsChanges: false)
        }
        let answer: WriteAnswer
        do throws(APIError) {
            answer = try storage.writeSchema.withSchema(refreshingFrom: storage.writer) { db throws(APIError) in
                try beforeCommit(
                    ClusterWriteSession(
                        schema: db,
                        writer: storage.writer,
                        target: .transaction(transaction),
                        deadline: deadline
                    )
                )
            }
        } catch {
            // Nothing was committed: the transaction stays as it was (its own savepoint undid the key's work),
            // unless the leader was lost meanwhile.
            if !transaction.isUsable || !transaction.isActive { rollback() }
            throw error
        }
        open.store(false, ordering: .releasing)
        do {
            try transaction.commit()
        } catch {
            var failure = APIError(cluster: error, isWrite: true)
            if error.kind != .outcomeUnknown { failure.rolledBack = true }
            throw failure
        }
        return answer
    }

    func rollback() {
        open.store(false, ordering: .releasing)
        transaction.rollback()
    }
}
