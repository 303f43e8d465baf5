import DqliteClient
public import DqliteCluster
import Synchronization

/// The cluster backend (issue #15): the service's statements run on the dqlite cluster's leader, whichever node
/// received the request, through the wire protocol (``ClusterClient``).
///
/// Two clients: one for the write endpoints, and one for `/query` whose leader connections run
/// `PRAGMA query_only=1` as they open, so that SQLite on the leader refuses a statement that would write (the
/// read-only rule of `/query`, which cannot be checked on this node alone). Every statement is first prepared on
/// a copy of the schema (``SchemaShadow``), one per client, for the local backend's checks and errors. Reads go to
/// the leader too, so a read after an acknowledged write sees it on any node.
public final class ClusterStorage: Sendable {
    /// What this node knows of the cluster (its id, the members and their roles, the leader), for `GET /cluster`
    /// and `/health`; the daemon asks its ``ClusterMember``.
    public typealias StatusProvider = @Sendable () throws(ClusterError) -> ClusterInfo

    /// The idle leader connections each client keeps at least: the HTTP server's handler threads.
    static let idleConnections = 64

    /// The name of the database every connection opens on the cluster.
    public static let defaultDatabaseName = "sqlited"

    let writer: ClusterClient
    let reader: ClusterClient
    let writeSchema: SchemaShadow
    let readSchema: SchemaShadow
    let status: StatusProvider
    /// This node's own Raft address, reported by `GET /cluster` (also before the node belongs to a configuration).
    let nodeAddress: String
    /// Groups the writes this node receives into one leader transaction each (``ClusterGroupWriter``).
    let groupCommitter = GroupCommitter<ClusterGroupWriter>()
    /// Runs the `/query` requests the event loops queue, in batches of one leader round trip each
    /// (``queueRead(_:context:answer:)``).
    let readBatcher = ReadBatcher<QueuedRead>(
        label: "sqlited.cluster-reads",
        workers: ClusterStorage.readWorkers,
        maxWorkers: ClusterStorage.maxReadWorkers,
        batchLimit: ClusterStorage.readBatchLimit,
        stallAfter: ClusterStorage.readStallAfter
    )
    /// Told the number of reads of each batch sent to the leader (``ClusterMetrics``' histogram).
    let readBatchObserver = Mutex<StoredClosure<Int, Void>?>(nil)
    /// The cursor codec with the cluster's shared key, once read (``cursorCodec()``).
    private let sharedCodec = Mutex<RecordCursorCodec?>(nil)

    /// A backend that reaches the leader through `members` (`"<IP>:<port>"` of any members; this node's own
    /// address is enough).
    ///
    /// - Parameters:
    ///   - nodeAddress: This node's Raft address.
    ///   - limits: The limits of the copies of the schema (SQL length, parameters, …), as the local backend's
    ///     connections get them when they open.
    ///   - options: The clients' database and time limits; the read-only client adds `PRAGMA query_only=1`.
    public init(
        nodeAddress: String,
        members: [String],
        limits: ServiceLimits,
        options: ClusterClient.Options = ClusterClient.Options(database: ClusterStorage.defaultDatabaseName),
        status: @escaping StatusProvider
    ) {
        // Sealed both ways on the leader (LeaderPolicy lets one query_only setting through, first): the reader's
        // connections refuse writes, and no caller can make a pooled writer connection read-only.
        var writeOptions = options
        writeOptions.queryOnly = false
        // As many idle leader connections as handler threads may use at once (64): with fewer, a node under more
        // concurrent requests closed the extra connections after each use and opened new ones (TCP, OPEN, the
        // query_only pragma: three more round trips) for the next — measured as most of a one-round-trip read's
        // cost at 64 connections (issue #26).
        writeOptions.maxIdleConnections = max(options.maxIdleConnections, Self.idleConnections)
        writer = ClusterClient(members: members, options: writeOptions)
        var readOptions = options
        readOptions.queryOnly = true
        readOptions.maxIdleConnections = max(options.maxIdleConnections, Self.idleConnections)
        reader = ClusterClient(members: members, options: readOptions)
        readSchema = SchemaShadow(role: .reader, limits: limits)
        writeSchema = SchemaShadow(role: .writer, limits: limits, dependent: readSchema)
        self.status = status
        self.nodeAddress = nodeAddress
    }

    /// The Tables API's cursor codec with the key every node of the cluster shares: kept in the replicated database,
    /// in the server's table `_sqlited_cursor_key` (which clients' SQL cannot reach, ``SQLPolicy/serverTablePrefix``),
    /// made by the first node that needs it, and read once per process. A cursor one node made is then valid on
    /// every node, and still refused by any other server (another cluster, a local server: another key).
    func cursorCodec() throws(APIError) -> RecordCursorCodec {
        if let codec = sharedCodec.withLock({ $0 }) { return codec }
        let table = SQLPolicy.serverTablePrefix + "cursor_key"
        let key: [UInt8]
        do {
            // Made once for the cluster: a second node's INSERT finds the row and changes nothing.
            _ = try writer.exec(
                "CREATE TABLE IF NOT EXISTS \(table)(id INTEGER PRIMARY KEY CHECK (id = 1), key BLOB NOT NULL)"
            )
            _ = try writer.exec("INSERT OR IGNORE INTO \(table)(id, key) VALUES (1, randomblob(32))")
            let rows = try reader.query("SELECT key FROM \(table) WHERE id = 1")
            guard case .blob(let bytes)? = rows.rows.first?.first, bytes.count >= 32 else {
                throw APIError.internal("the cluster's cursor key is missing or malformed")
            }
            key = bytes
        } catch let error as ClusterError {
            throw APIError(cluster: error, isWrite: true)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.internal("the cluster's cursor key could not be read")
        }
        let codec = RecordCursorCodec(keyBytes: key)
        sharedCodec.withLock { $0 = codec }
        return codec
    }

    /// Closes the clients' idle connections.
    public func close() {
        writer.close()
        reader.close()
    }
}
