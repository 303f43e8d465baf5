import SQLiteEngine

/// The local storage: one `DatabasePool` on this machine, its readers working concurrently on WAL snapshots (the
/// writer and the group committer are still reached through ``StorageBackend/local(_:)``).
struct LocalStorage: Storage {
    let pool: DatabasePool
    /// Signs and checks the Tables API's paging cursors (a key made at start).
    private let codec = RecordCursorCodec()

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func unavailableReason() -> String? { nil }

    func cursorCodec() throws(APIError) -> RecordCursorCodec { codec }

    var backupBaseName: String { pool.path }

    /// SQLite's online backup API on a reader connection, so reads and writes go on meanwhile.
    func backup(to path: String, metrics: ServiceMetrics?) throws(APIError) {
        try onReader(metrics: metrics) { db throws(APIError) in
            do {
                try db.backup(to: path)
            } catch {
                throw APIError(error, db: db)
            }
        }
    }

    /// Runs `body` on a reader connection, in one read transaction unless `isolation` says otherwise; statement
    /// cache lookups are added to `metrics`.
    func onReader<T>(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation = .snapshot,
        _ body: (Database) throws(APIError) -> T
    ) throws(APIError) -> T {
        do {
            return try pool.read(isolation: isolation) { db in
                try SQLiteService.countingStatementCache(db, metrics: metrics, body)
            }
        } catch {
            throw APIError(error, db: nil)
        }
    }

    /// Runs `body` on a reader connection if one is free now, for the event loop; nil when none is free or when
    /// `body` gives up (returns nil).
    ///
    /// SQLite's busy handler would sleep on the event loop, so the reader's busy timeout is 0 meanwhile: a busy
    /// reader fails with `SQLITE_BUSY` at once, and the caller hands the request to a handler thread, which waits.
    /// Statement cache lookups are added to `metrics` only when `body` answers (a result or a client error), so
    /// that a request given up here and answered on a handler thread is counted once.
    func tryOnReader<T>(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation,
        _ body: (Database) throws(APIError) -> T?
    ) throws(APIError) -> T? {
        do {
            let result = try pool.tryRead(isolation: isolation) { db throws(APIError) -> T? in
                try db.withoutBusyWait { () throws(APIError) -> T? in
                    let before = db.statementCacheStatistics
                    let record = {
                        let after = db.statementCacheStatistics
                        metrics?.recordStatementCache(
                            hits: after.hits - before.hits,
                            misses: after.misses - before.misses
                        )
                    }
                    do throws(APIError) {
                        guard let result = try body(db) else { return nil }
                        record()
                        return result
                    } catch {
                        // A server-side failure is given up too (the caller lets handle() answer it).
                        if error.status < 500 { record() }
                        throw error
                    }
                }
            }
            return result ?? nil
        } catch {
            throw APIError(error, db: nil)
        }
    }

    func query(
        _ request: QueryRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?
    ) throws(APIError) -> [UInt8] {
        try onReader(metrics: metrics, isolation: SQLiteService.isolation(of: request)) { db throws(APIError) in
            try SQLiteService.runQuery(request, context: &context, on: db, until: context.deadline)
        }
    }

    /// The statement runs on a reader taken from the pool for the whole stream, in its own read transaction (one
    /// statement, one snapshot), with the stream's deadline on its progress handler.
    func streamQuery(
        _ statement: StatementRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?,
        into out: inout StreamedResultWriter
    ) throws(APIError) {
        try onReader(metrics: metrics, isolation: .statement) { db throws(APIError) in
            try db.withRequestDeadline(context.deadline) { () throws(APIError) in
                try StatementExecutor(db: db).stream(statement, context: &context, into: &out)
            }
        }
    }

    var streamReaders: Int? { pool.poolConfiguration.maximumReaderCount }

    func readSchema(
        metrics: ServiceMetrics?,
        _ body: (Database) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8] {
        try onReader(metrics: metrics, body)
    }

    func readRecords(
        metrics: ServiceMetrics?,
        _ body: (RecordSource) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8] {
        try onReader(metrics: metrics) { db throws(APIError) in try body(.local(db)) }
    }

    func readNow(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation,
        _ body: (Database) throws(APIError) -> [UInt8]?
    ) throws(APIError) -> [UInt8]? {
        try tryOnReader(metrics: metrics, isolation: isolation, body)
    }

    func openTransaction(
        _ mode: TransactionOpenRequest.Mode,
        limits: ServiceLimits,
        metrics: ServiceMetrics?
    ) throws(APIError) -> any TransactionHandle {
        guard let writeMode = mode.writeMode else { return try LocalReadTransaction(pool: pool, metrics: metrics) }
        return try LocalWriteTransaction(
            pool: pool,
            mode: writeMode,
            waitLimit: .now + limits.writerWaitTimeout,
            metrics: metrics
        )
    }
}
