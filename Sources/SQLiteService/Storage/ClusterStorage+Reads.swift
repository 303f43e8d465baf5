import DqliteClient
import DqliteCluster

/// `POST /query` on the cluster without a handler thread per read (issue #26): the event loop queues each decoded
/// read (``queueRead(_:context:answer:)``), and a worker of ``readBatcher`` runs the reads waiting together — each
/// checked on the copy of the schema as one read is, then all sent to the leader in one write, kept prepared there,
/// and answered in order: one round trip for the batch.
///
/// Each read keeps the answers of a read run alone (``query(_:context:metrics:)``): the same checks, the same
/// result, the same errors. A read a batch cannot carry as is — a `params_batch`, a statement with no rows, one
/// whose answer may come from an out-of-date copy of the schema (an error `SQLITE_ERROR` or `SQLITE_SCHEMA`,
/// other columns, another schema version) — runs alone after the batch, on the same worker, with every retry a
/// read alone has. A batch is retried whole, as one read is, after an error of the connection or the leader.
///
/// Head-of-line: a read waits for the slowest read of its batch (the leader answers a connection's requests in
/// order). Reads queued behind a slow batch are not held by it: after ``readStallAfter`` another worker starts
/// (``ReadBatcher``).
extension ClusterStorage {
    /// A read waiting for a batch: its request, its context, and where its result goes.
    struct QueuedRead: Sendable {
        let request: QueryRequest
        let context: RequestContext
        let answer: @Sendable (Result<[UInt8], APIError>) -> Void
    }

    /// A read checked and ready to go with the others: where its statement sits in the batch, and the leader's
    /// schema version its copy of the schema was built from when the read needs it checked (a `*` read).
    private struct PipelinedRead {
        let read: Int
        let plan: ClusterStatementPlan
        let statement: Int
        let copyVersion: Int64?
    }

    /// How many batches of reads wait for the leader at once, each on a leader connection of its own, while none
    /// is slow. Two, measured (`scripts/bench-cluster.sh`, through a follower at 64 connections): 28,900 reads/s
    /// with two, 20,600 with four, whose smaller batches cost the leader and this node more per read.
    static let readWorkers = 2

    /// How many batches run at once when some are slow (``ReadBatcher``): one more for each batch running for
    /// longer than ``readStallAfter``, so a long query holds up the reads of its own batch only.
    static let maxReadWorkers = 16

    /// How long a batch of reads runs before another worker may start beside it.
    static let readStallAfter: Duration = .milliseconds(20)

    /// The most reads in one batch: with the `PRAGMA schema_version` after them, within
    /// ``ClusterClient/pipelineLimit`` statements.
    static let readBatchLimit = ClusterClient.pipelineLimit - 1

    /// Queues a decoded `/query` for the next batch; `answer` is called once, from a worker, with its result object
    /// or its error.
    func queueRead(
        _ request: QueryRequest,
        context: RequestContext,
        answer: @escaping @Sendable (Result<[UInt8], APIError>) -> Void
    ) {
        readBatcher.submit(QueuedRead(request: request, context: context, answer: answer)) { batch in
            self.runReads(batch)
        }
    }

    /// Runs one batch: checks each read on the copy of the schema, sends those that can go together in one write,
    /// answers them, then runs the rest alone.
    func runReads(_ reads: [QueuedRead]) {
        var pipelined: [PipelinedRead] = []
        var statements: [ClusterRead] = []
        var alone: [Int] = []
        var deadline = ContinuousClock.Instant.now
        /// A read that failed before it could go with the others: an error from the copy of the schema may be its
        /// being out of date, which a read alone checks.
        func failed(_ index: Int, _ error: APIError) {
            if Self.mayComeFromAStaleCopy(error) { alone.append(index) } else { reads[index].answer(.failure(error)) }
        }
        do throws(APIError) {
            // The whole batch checked on one hold of the copy (as last checked: see `query`).
            try readSchema.withSchema(refreshingFrom: reader, checkingVersion: false) {
                (db, version) throws(APIError) in
                for (index, read) in reads.enumerated() {
                    do throws(APIError) {
                        try read.context.checkDeadline()
                        let plan = try ClusterStatementPlan(read.request.statement, on: db, context: read.context)
                        let needsVersion = Self.takesColumnsFromSchema(read.request.statement.sql)
                        guard plan.isPipelinable, !needsVersion || version != nil else {
                            alone.append(index)
                            continue
                        }
                        pipelined.append(
                            PipelinedRead(
                                read: index,
                                plan: plan,
                                statement: statements.count,
                                copyVersion: needsVersion ? version : nil
                            )
                        )
                        statements.append(ClusterRead(plan.sql, parameters: plan.parameterSets[0]))
                        deadline = max(deadline, read.context.deadline)
                    } catch {
                        failed(index, error)
                    }
                }
            }
        } catch {
            // The copy could not be had (its first build, from the leader): every read meets that error alone.
            for index in reads.indices { failed(index, error) }
        }
        if !pipelined.isEmpty {
            // One `PRAGMA schema_version` after the batch's reads, when one of them needs it: see `answer`.
            let probe = pipelined.contains { $0.copyVersion != nil } ? statements.count : nil
            if probe != nil { statements.append(ClusterRead("PRAGMA schema_version")) }
            readBatchObserver.withLock { $0 }?(pipelined.count)
            do throws(ClusterError) {
                let results = try reader.query(pipelined: statements, deadline: deadline)
                let leaderVersion: Int64? =
                    if let probe, case .success(let rows) = results[probe],
                        case .integer(let value)? = rows.rows.first?.first
                    {
                        value
                    } else {
                        nil
                    }
                for item in pipelined {
                    let read = reads[item.read]
                    switch Self.answer(item, read: read, results: results, leaderVersion: leaderVersion) {
                    case .answered(let result): read.answer(result)
                    case .runAlone: alone.append(item.read)
                    }
                }
            } catch {
                let failure = APIError(cluster: error, isWrite: false)
                for item in pipelined { reads[item.read].answer(.failure(failure)) }
            }
        }
        for index in alone {
            let read = reads[index]
            var context = read.context
            do throws(APIError) {
                read.answer(.success(try query(read.request, context: &context, metrics: nil)))
            } catch {
                read.answer(.failure(error))
            }
        }
    }

    private enum Answer {
        case answered(Result<[UInt8], APIError>)
        case runAlone
    }

    /// One read's answer from the batch's results: its result object or its error, or `.runAlone` when the
    /// answer may come from an out-of-date copy of the schema.
    ///
    /// A `*` read takes its columns from the schema, and dqlite 1.11 may answer it in a stale layout that a stale
    /// copy matches (see ``query(_:context:metrics:)``). Its copy's version is checked against `leaderVersion`,
    /// read after every read of the batch on the same connection: versions only grow, and the copy's was read from
    /// the leader before the batch, so equal versions mean the read ran on the copy's schema.
    private static func answer(
        _ item: PipelinedRead,
        read: QueuedRead,
        results: [Result<DqliteRows, ClusterError>],
        leaderVersion: Int64?
    ) -> Answer {
        if let copyVersion = item.copyVersion, copyVersion != leaderVersion { return .runAlone }
        var context = read.context
        do throws(APIError) {
            let returned = try results[item.statement].mapError { APIError(cluster: $0, isWrite: false) }.get()
            // Answered after the read's own time limit (it waited for the batch): as a read alone would be.
            try context.checkDeadline()
            var writer = JSONWriter()
            try ClusterStatementRunner.writeRead(item.plan, returned: returned, context: &context, into: &writer)
            return .answered(.success(writer.bytes))
        } catch {
            if mayComeFromAStaleCopy(error) { return .runAlone }
            return .answered(.failure(error))
        }
    }

    /// Whether `sql` has a `*` (a byte scan: `String.contains` of a string goes through Foundation): its result
    /// columns may come from the schema, so its answer is checked against the schema version.
    static func takesColumnsFromSchema(_ sql: String) -> Bool {
        sql.utf8.contains(UInt8(ascii: "*"))
    }
}
