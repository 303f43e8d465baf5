import HTTPServer
import SQLiteEngine

/// A write request's work, written once for both storages: what it runs through a ``WriteSession``, and its answer.
///
/// On the local storage it becomes a ``PreparedWrite`` for the group committer (``SQLiteService/preparedWrite(_:)``);
/// on the cluster it runs at once on the leader. `body` may run more than once (a group run again, a cluster
/// transaction tried again while another node holds the leader's write lock): it keeps no state between runs.
struct StorageWrite {
    /// When the request's time limit runs out.
    var deadline: ContinuousClock.Instant
    /// The size of the request's body, counted against a group's `max_bytes`.
    var bytes: Int
    /// Whether `body` is one transaction in autocommit mode (false for `/batch`, whose statements commit alone).
    var isOneTransaction = true
    /// Whether `body` runs exactly one client statement and nothing else (a `/update`), whose failure keeps nothing
    /// by itself (``WriteSession/runWhole(sql:_:)``): a cluster group then runs it without a savepoint of its own (a
    /// round trip less).
    var isOneStatement = false
    /// The request's work and answer.
    var answer: (any WriteSession) throws(APIError) -> WriteAnswer
    /// The request's hold on its `Idempotency-Key` on this node, released once it is answered (nil without a key).
    var claim: IdempotencyClaim?

    /// A write whose answer keeps its changes exactly when it is a success (2xx).
    init(
        deadline: ContinuousClock.Instant,
        bytes: Int,
        isOneTransaction: Bool = true,
        body: @escaping (any WriteSession) throws(APIError) -> HTTPResponse
    ) {
        self.init(deadline: deadline, bytes: bytes, isOneTransaction: isOneTransaction) { session throws(APIError) in
            let response = try body(session)
            return WriteAnswer(response: response, keepsChanges: (200..<300).contains(response.status.code))
        }
    }

    /// A write that says itself whether its answer kept changes (a `/batch` that stopped after some statements).
    init(
        deadline: ContinuousClock.Instant,
        bytes: Int,
        isOneTransaction: Bool = true,
        answer: @escaping (any WriteSession) throws(APIError) -> WriteAnswer
    ) {
        self.deadline = deadline
        self.bytes = bytes
        self.isOneTransaction = isOneTransaction
        self.answer = answer
    }

    /// Runs the request on `session` and returns its response.
    func body(_ session: any WriteSession) throws(APIError) -> HTTPResponse {
        try answer(session).response
    }
}

/// A write request's response, and whether the changes it made stay (what an `Idempotency-Key` stores: every 2xx
/// answer, and a failure after some changes stayed).
struct WriteAnswer {
    var response: HTTPResponse
    var keepsChanges: Bool
}

/// Where a write request's statements run: the local writer, or the cluster's leader. The endpoints of the writes
/// (`/update`, `/batch`, `/transaction`, the Tables API's) are written once over it.
protocol WriteSession {
    /// The database whose schema names the tables and on which a script is split: the local writer, or this node's
    /// copy of the leader's schema.
    var schema: Database { get }

    /// The record writes' statements (the Tables API's), run where this session's statements run.
    var records: any RecordStatementRunner { get }

    /// Runs one statement of the request and appends its result object to `out`.
    func run(_ statement: StatementRequest, context: inout RequestContext, into out: inout JSONWriter) throws(APIError)

    /// Runs one statement of a `/batch` script (prepared on ``schema`` by the script's iterator).
    func run(scriptStatement: Statement, context: inout RequestContext, into out: inout JSONWriter) throws(APIError)

    /// Runs a `/batch` statement so that it commits on its own, whatever surrounds the request (a group).
    func alone<T>(_ body: () throws(APIError) -> T) throws(APIError) -> T

    /// After each `/batch` statement: throws when the statement's failure took the whole request's work with it
    /// (a group's transaction rolled back by SQLite), so the batch fails as a whole.
    func afterBatchStep(_ run: BatchRun) throws(APIError)

    /// The error a failed `/batch` ends with as a whole (`rolled_back`), when `error` took the whole request's work
    /// with it; nil when the batch records it as its last statement's.
    func batchFailedAsAWhole(_ error: APIError) -> APIError?

    /// Runs one of the server's own statements, on its tables (``SQLPolicy/serverTablePrefix``, which clients' SQL
    /// cannot reach), where this session's statements run; returns its rows.
    func serverStatement(_ sql: ServerSQL, _ arguments: [DatabaseValue]) throws(APIError) -> [[DatabaseValue]]

    /// Runs `body` all or nothing: in a transaction of `mode` (deferred when nil), or the request's savepoint inside
    /// a group; the deferred foreign keys are checked at its end. On failure everything `body` did is undone, and
    /// when `marksRolledBack` the error says so (`rolled_back`), unless its outcome is unknown (a cluster COMMIT
    /// whose answer was lost). `body` gets the session to run its statements through.
    func atomically<T>(
        mode: TransactionRequest.Mode?,
        marksRolledBack: Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T

    /// Runs `body` as the whole of the request's work, all or nothing (a keyed write: the key's lookup, the request,
    /// the key's row): as ``atomically(mode:marksRolledBack:_:)`` in an immediate transaction, run again after an
    /// error (undone first) for which `retry` says so. Inside a group the request's own savepoint is that unit
    /// already (the group undoes it when the request fails): `body` runs in it as it is, and its errors leave the
    /// request, never retried.
    func wholeRequest<T>(
        retrying retry: (APIError) -> Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T
}

extension WriteSession {
    func wholeRequest<T>(
        retrying retry: (APIError) -> Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        try inOwnTransaction(retrying: retry, body)
    }

    /// ``wholeRequest(retrying:_:)`` in a transaction of its own.
    func inOwnTransaction<T>(
        retrying retry: (APIError) -> Bool,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T {
        while true {
            do {
                return try atomically(mode: .immediate, marksRolledBack: false, body)
            } catch  where retry(error) {
                continue
            }
        }
    }
}

extension SQLiteService {
    /// Runs a write on a handler thread and answers once it is durable: on the local writer through the group
    /// committer (``preparedWrite(_:)``), on the cluster's leader through the same committer over the cluster's
    /// writer (``ClusterStorage/runInGroup(_:options:metrics:logger:)``), or alone with this node's write copy of
    /// the schema held for the request when group commit is off. With ``performWriteDeferred(_:_:completion:)``,
    /// the one place a write's storage is chosen.
    func performWrite(_ write: StorageWrite, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local:
            return try run(preparedWrite(write), metrics: settings.options.metrics)
        case .cluster(let cluster):
            let groupCommit = settings.options.groupCommit
            if groupCommit.isEnabled {
                return try cluster.runInGroup(
                    write,
                    options: groupCommit,
                    metrics: settings.options.metrics,
                    logger: logger
                )
            }
            return try cluster.writeSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
                try write.body(
                    ClusterWriteSession(
                        schema: db,
                        writer: cluster.writer,
                        target: .client(cluster.writer),
                        deadline: write.deadline
                    )
                )
            }
        }
    }

    /// ``performWrite(_:_:)`` without a thread waiting (the event loop's writes, group commit on): `write` is queued
    /// for the storage's next group, and `completion` gets its response (or error) once the group's `COMMIT` is
    /// over, from the thread that led the group.
    func performWriteDeferred(
        _ write: StorageWrite,
        _ settings: ServiceSettings,
        completion: @escaping (Result<HTTPResponse, APIError>) -> Void
    ) {
        let groupCommit = settings.options.groupCommit
        let metrics = settings.options.metrics
        switch storage {
        case .local:
            onWriterInGroupDeferred(
                preparedWrite(write),
                metrics: metrics,
                options: groupCommit,
                completion: completion
            )
        case .cluster(let cluster):
            cluster.runInGroupDeferred(
                write,
                options: groupCommit,
                metrics: metrics,
                logger: logger,
                completion: completion
            )
        }
    }

    /// The local writer's form of a write, for the group committer: its body on a ``LocalWriteSession``, under the
    /// request's time limit.
    func preparedWrite(_ write: StorageWrite) -> PreparedWrite {
        var prepared = PreparedWrite(
            deadline: write.deadline,
            bytes: write.bytes,
            isOneTransaction: write.isOneTransaction
        ) { db throws(APIError) in
            try db.withRequestDeadline(write.deadline) { () throws(APIError) in
                try write.body(LocalWriteSession(db))
            }
        }
        prepared.claim = write.claim
        return prepared
    }
}
