import DqliteClient
import DqliteCluster
import Foundation
import HTTPServer
import Testing

@testable import SQLiteService

/// `POST /query` on the cluster taken on the event loop (``SQLiteService/handleDeferred(_:respond:)``) and run in
/// batches sent to the leader in one write (``ClusterStorage/runReads(_:)``): each answer is the one a read run
/// alone on a handler thread gets, errors included — on an in-process service over a real one-node cluster.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClusterReadBatchTests {
    private static func makeTable(_ service: SQLiteService) {
        for sql in [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)",
            "INSERT INTO t(v) VALUES ('a'), ('b'), ('c')",
        ] {
            #expect(service.handle(jsonPost("/update", #"{"sql": "\#(sql)"}"#)).status.code == 200)
        }
    }

    /// Submits `requests` through `handleDeferred` at once (each must be taken) and returns their answers.
    private static func deferred(_ requests: [HTTPRequest], on service: SQLiteService) -> DeferredAnswers {
        let answers = DeferredAnswers()
        for (index, request) in requests.enumerated() {
            let taken = service.handleDeferred(request) { response in
                answers.storage.withLock { $0[index] = response }
            }
            #expect(taken, "\(index) was not taken on the event loop")
        }
        answers.wait(for: requests.count)
        return answers
    }

    /// Checks that reads queued together are answered as each one is alone (`handle`, a handler thread's door):
    /// the same status and the same bytes, for results and for every kind of error — one refused by the copy of
    /// the schema, a bad parameter count, a write sent to `/query`, a statement failing on the leader part way
    /// (integer overflow) among reads that succeed, a `params_batch` (run alone), a row limit, broken JSON, a
    /// content type other than JSON.
    @Test func queuedReads_areAnsweredAsReadsAlone() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        Self.makeTable(service)
        var requests = [
            jsonPost("/query", #"{"sql": "SELECT * FROM t WHERE id = ?", "params": [1]}"#),
            jsonPost("/query", #"{"sql": "SELECT v FROM t WHERE id = ?", "params": [2]}"#),
            jsonPost("/query", #"{"sql": "SELECT abs(-9223372036854775807 - 1) AS boom"}"#),
            jsonPost("/query", #"{"sql": "SELECT v FROM t ORDER BY id", "shape": "arrays"}"#),
            jsonPost("/query", #"{"sql": "SELECT * FROM nowhere"}"#),
            jsonPost("/query", #"{"sql": "SELECT v FROM t WHERE id = ?", "params": []}"#),
            jsonPost("/query", #"{"sql": "SELECT v FROM t WHERE id = ?", "params_batch": [[1], [3]]}"#),
            jsonPost("/query", #"{"sql": "INSERT INTO t(v) VALUES ('x')"}"#),
            jsonPost("/query", #"{"sql": "SELECT v FROM t ORDER BY id", "max_rows": 1}"#),
            jsonPost("/query", #"{"sql": "SELECT count(*) AS n, :p AS p FROM t", "params": {"p": "named"}}"#),
            jsonPost("/query", #"{"sql": "#),
            jsonPost("/query", #"{"sql": "SELECT 1"}"#),
        ]
        requests[11].headers = HTTPHeaders()
        requests[11].headers.add(name: "Content-Type", value: "text/plain")
        // The same reads again, now with every statement kept prepared on the leader connections.
        requests += requests
        let answers = Self.deferred(requests, on: service)
        var statuses: [Int] = []
        for (index, request) in requests.enumerated() {
            let alone = service.handle(request)
            guard let queued = answers[index] else {
                Issue.record("request \(index) was not answered")
                continue
            }
            #expect(queued.status.code == alone.status.code, "\(index)")
            #expect(bodyText(queued) == bodyText(alone), "\(index)")
            statuses.append(queued.status.code)
        }
        #expect(statuses.prefix(12) == [200, 200, 400, 200, 400, 400, 200, 400, 200, 200, 400, 415])
        #expect(bodyText(answers[0]!).contains(#""v":"a""#))
        #expect(bodyText(answers[2]!).contains("integer overflow"))
        #expect(bodyText(answers[8]!).contains(#""truncated":true"#))
    }

    /// Checks that a streamed `/query` (NDJSON) is not taken: a handler thread writes it as it is read.
    @Test func aStreamedQuery_goesToAHandlerThread() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        var request = jsonPost("/query", #"{"sql": "SELECT 1"}"#)
        request.headers.add(name: "Accept", value: "application/x-ndjson")
        #expect(!service.handleDeferred(request) { _ in })
    }

    /// Checks that reads waiting while every worker is busy go to the leader together: 20 quick reads queued behind
    /// slow ones cost far fewer leader round trips than reads (one each, alone), and each gets its own answer.
    @Test func readsWaitingForAWorker_shareRoundTrips() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        Self.makeTable(service)
        guard case .cluster(let storage) = service.storage else {
            Issue.record("not a cluster service")
            return
        }
        let slow =
            #"{"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400000) SELECT count(*) AS n FROM c"}"#
        var requests = Array(repeating: jsonPost("/query", slow), count: ClusterStorage.readWorkers)
        for index in 0..<20 {
            requests.append(
                jsonPost("/query", #"{"sql": "SELECT v FROM t WHERE id = ?", "params": [\#(index % 3 + 1)]}"#)
            )
        }
        let before = storage.reader.statistics.roundTrips
        let answers = Self.deferred(requests, on: service)
        let roundTrips = storage.reader.statistics.roundTrips - before
        for index in 0..<ClusterStorage.readWorkers {
            #expect(bodyText(answers[index]!).contains(#""n":400000"#), "\(index)")
        }
        for index in 0..<20 {
            let expected = ["a", "b", "c"][index % 3]
            #expect(bodyText(answers[ClusterStorage.readWorkers + index]!).contains(#""v":"\#(expected)""#))
        }
        // Alone: 22 round trips at least. Batched: a PREPARE of each statement per leader connection and one round
        // trip per batch; the quick reads fill one or a few (another worker takes them once the slow batches have
        // run for `readStallAfter`).
        #expect(roundTrips <= 16, "\(roundTrips) round trips for \(requests.count) reads")
        // Every read went in a batch, and the batches held several reads on average.
        let batched = metricSample("sqlited_cluster_read_batch_reads_sum", of: service)
        let batches = metricSample("sqlited_cluster_read_batch_reads_count", of: service) ?? 0
        #expect(batched == Double(requests.count))
        #expect(batches >= 1 && batches < Double(requests.count) / 2, "\(batches) batches")
    }

    /// Checks that a queued read sees a schema another client changed on the leader behind this node's copy: the
    /// answer from the stale copy is given up and the read runs again on a checked copy, with or without `*`.
    @Test func aQueuedRead_seesASchemaChangedElsewhere() throws {
        let member = try TestMember(id: 1)
        let service = clusterService(member)
        Self.makeTable(service)
        let warm = Self.deferred([jsonPost("/query", #"{"sql": "SELECT * FROM t WHERE id = 1"}"#)], on: service)
        #expect(bodyText(warm[0]!).contains(#""columns":["id","v"]"#))

        let other = try DqliteConnection(address: member.address, options: testConnectionOptions)
        defer { other.close() }
        let database = try other.open(ClusterStorage.defaultDatabaseName)
        _ = try other.exec(sql: "ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'new'", database: database)

        let answers = Self.deferred(
            [
                jsonPost("/query", #"{"sql": "SELECT * FROM t WHERE id = 1"}"#),
                jsonPost("/query", #"{"sql": "SELECT extra FROM t WHERE id = 2"}"#),
            ],
            on: service
        )
        #expect(answers[0]?.status.code == 200)
        #expect(bodyText(answers[0]!).contains(#""columns":["id","v","extra"]"#), "\(bodyText(answers[0]!))")
        #expect(answers[1]?.status.code == 200)
        #expect(bodyText(answers[1]!).contains(#""extra":"new""#), "\(bodyText(answers[1]!))")
    }
}
