import SQLiteEngine

/// What the endpoints need from where the data lives, each written once per storage: ``LocalStorage`` (a
/// `DatabasePool` on this machine) and ``ClusterStorage`` (a dqlite cluster through its leader). An endpoint asks
/// for a read, the schema or the records, never which storage it has (GRDB's `DatabaseReader`, with `DatabaseQueue`
/// and `DatabasePool` behind it, is the model).
///
/// The writes go through a ``WriteSession`` of the storage (``SQLiteService/performWrite(_:_:)``, the one place a
/// write's storage is chosen: the local one's go through the group committer).
protocol Storage: Sendable {
    /// Runs `/query`'s statement on a read-only connection: its result object's bytes.
    func query(
        _ request: QueryRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?
    ) throws(APIError) -> [UInt8]

    /// Runs a read-only statement (one set of parameters) whose result is streamed: its rows go to `out` as they are
    /// read, on a reader (locally) or a leader connection (on a cluster) held until the last row is taken, under
    /// `context`'s deadline and row count. The caller writes the stream's end (``SQLiteService/streamedResponse``).
    func streamQuery(
        _ statement: StatementRequest,
        context: inout RequestContext,
        metrics: ServiceMetrics?,
        into out: inout StreamedResultWriter
    ) throws(APIError)

    /// Whether a streamed result holds one of the storage's readers until its last row (the local reader pool),
    /// so that streams can starve other reads of readers; the number of readers is given.
    var streamReaders: Int? { get }

    /// Runs `body` on a database whose schema is the storage's: a reader in one read transaction, or this node's
    /// copy of the cluster leader's schema, brought up to date first.
    func readSchema(
        metrics: ServiceMetrics?,
        _ body: (Database) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8]

    /// Runs `body` on the storage's records (a Tables read).
    func readRecords(
        metrics: ServiceMetrics?,
        _ body: (RecordSource) throws(APIError) -> [UInt8]
    ) throws(APIError) -> [UInt8]

    /// Runs `body` on a reader that is free at once, for the event loop; nil when none is free, when `body` gives
    /// up (returns nil), or when the storage cannot answer without waiting (the cluster's reads wait for the leader).
    func readNow(
        metrics: ServiceMetrics?,
        isolation: DatabasePool.ReadIsolation,
        _ body: (Database) throws(APIError) -> [UInt8]?
    ) throws(APIError) -> [UInt8]?

    /// Why the storage cannot serve requests now (a cluster node that knows no leader), or nil.
    func unavailableReason() -> String?

    /// The codec of the Tables API's paging cursors: this process's key locally, the cluster's shared one on a
    /// cluster (a cursor one node made is valid on every node).
    func cursorCodec() throws(APIError) -> RecordCursorCodec

    /// The name backup files are named after (the database's file name).
    var backupBaseName: String { get }

    /// Writes a consistent copy of the database as an ordinary SQLite file at `path` (a new file), while reads and
    /// writes go on.
    func backup(to path: String, metrics: ServiceMetrics?) throws(APIError)

    /// Opens an interactive transaction (`POST /transactions`): the writer held for a write `mode` (waiting for it
    /// until `limits.writerWaitTimeout`), one reader's snapshot for `read_only`.
    func openTransaction(
        _ mode: TransactionOpenRequest.Mode,
        limits: ServiceLimits,
        metrics: ServiceMetrics?
    ) throws(APIError) -> any TransactionHandle

    /// Runs a maintenance request (`/admin/*`): its answer's body.
    func maintenance(_ request: MaintenanceRequest, metrics: ServiceMetrics?) throws(APIError) -> [UInt8]
}
