import Dispatch
import DqliteClient
import Foundation
import Synchronization
import Testing

/// Group commit on the cluster (issue #26): the writes a node receives while its previous group is in flight form
/// one leader transaction, each in a savepoint of its own, answered after the one `COMMIT`.
///
/// To make a group on demand, a raw wire client holds the leader's write lock (`BEGIN IMMEDIATE`): the node's
/// first write waits for the lock, and every write sent meanwhile queues behind it and forms the next group.
///
/// The suite has a shared cluster of its own (``SharedCluster/Sharing/heldLeaderLock``): the held lock would make
/// the other suites' writes wait, and theirs would hold it when this suite needs it.
@Suite(.serialized) struct ClusterGroupCommitTests {
    /// Checks that writes from 16 clients sent through a follower while the leader's write lock is held are not
    /// answered while it is held, are all answered 200 once it is released, every row is there, and they were
    /// committed in at most three groups (the follower's group series).
    @Test func writesFromManyClients_formOneGroupAnsweredAfterItsCommit() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v TEXT)")
        let before = try GroupSeries(cluster.client(follower))
        let bodies = (0..<16).map { #"{"sql": "INSERT INTO \#(table)(v) VALUES (?)", "params": ["w\#($0)"]}"# }
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, path: "/update", bodies: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(800_000)
            #expect(writes.answeredCount == 0, "answered while the leader's write lock was held")
            return writes
        }.waitForAll()
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map(\.bodyText))")
        #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(table)") == 16)
        let after = try GroupSeries(cluster.client(follower))
        #expect(after.requests - before.requests == 16)
        #expect(after.groups - before.groups <= 3, "16 writes in \(after.groups - before.groups) groups")
    }

    /// Checks that in one group, the requests that fail (a UNIQUE violation, a failing `/transaction`, a `/batch`
    /// stopped at its failing statement) get their own error and leave nothing, while the others are committed.
    @Test func failingRequestsInAGroup_leaveTheOthersCommitted() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[1]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT UNIQUE)")
        try cluster.client(follower).update("INSERT INTO \(table)(k) VALUES ('taken')")
        var bodies: [(path: String, body: String)] = []
        for index in 0..<8 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["ok\#(index)"]}"#))
        }
        bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES ('taken')"}"#))
        bodies.append(
            (
                "/transaction",
                #"{"statements": [{"sql": "INSERT INTO \#(table)(k) VALUES ('tx1')"}, "#
                    + #"{"sql": "INSERT INTO \#(table)(k) VALUES ('taken')"}]}"#
            )
        )
        bodies.append(
            (
                "/batch",
                #"{"statements": [{"sql": "INSERT INTO \#(table)(k) VALUES ('b1')"}, "#
                    + #"{"sql": "INSERT INTO \#(table)(k) VALUES ('taken')"}]}"#
            )
        )
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, requests: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        for index in 0..<8 {
            #expect(answers[index].status == 200, "\(answers[index].bodyText)")
        }
        #expect(answers[8].status == 409)
        #expect(answers[8].bodyText.contains("SQLITE_CONSTRAINT_UNIQUE"))
        #expect(answers[9].status == 409)
        #expect(answers[9].bodyText.contains(#""rolled_back":true"#), "\(answers[9].bodyText)")
        // A /batch commits its statements one by one: the first stays, as on one node.
        #expect(answers[10].status == 409, "\(answers[10].bodyText)")
        let keys = try cluster.client(follower).ok(
            "/query",
            #"{"sql": "SELECT k FROM \#(table) ORDER BY k", "shape": "arrays"}"#
        )
        let stored = Set((keys["rows"]?.arrayValue ?? []).compactMap { $0[0]?.stringValue })
        #expect(stored == Set((0..<8).map { "ok\($0)" } + ["taken", "b1"]))
    }

    /// Checks that a request whose statement makes SQLite roll the whole group transaction back (`INSERT OR
    /// ROLLBACK` meeting a UNIQUE key) fails alone: the group's other requests run again and are committed.
    @Test func requestRollingBackTheWholeTransaction_failsAlone() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT UNIQUE)")
        try cluster.client(follower).update("INSERT INTO \(table)(k) VALUES ('taken')")
        var bodies: [(path: String, body: String)] = []
        for index in 0..<6 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["a\#(index)"]}"#))
        }
        bodies.append(("/update", #"{"sql": "INSERT OR ROLLBACK INTO \#(table)(k) VALUES ('taken')"}"#))
        for index in 0..<6 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["b\#(index)"]}"#))
        }
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, requests: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        for (index, answer) in answers.enumerated() where index != 6 {
            #expect(answer.status == 200, "request \(index): \(answer.bodyText)")
        }
        #expect(answers[6].status == 409, "\(answers[6].bodyText)")
        #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(table)") == 13)
    }

    /// Checks that a client's `/transaction` inside a group cannot name a group savepoint (the reserved prefix):
    /// 403 `SQLITE_AUTH`, and the group's other requests are committed.
    @Test func reservedSavepointNames_areRefusedInsideAGroup() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[1]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v TEXT)")
        var bodies: [(path: String, body: String)] = []
        for index in 0..<4 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(v) VALUES (?)", "params": ["v\#(index)"]}"#))
        }
        for statement in ["RELEASE sqlited_gc_1", "ROLLBACK TO sqlited_gc_x_2", "SAVEPOINT SQLITED_GC_3"] {
            bodies.append(
                (
                    "/transaction",
                    #"{"statements": [{"sql": "INSERT INTO \#(table)(v) VALUES ('bad')"}, {"sql": "\#(statement)"}]}"#
                )
            )
        }
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, requests: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        for index in 0..<4 {
            #expect(answers[index].status == 200, "\(answers[index].bodyText)")
        }
        for index in 4..<7 {
            #expect(answers[index].status == 403, "\(answers[index].bodyText)")
            #expect(answers[index].bodyText.contains("SQLITE_AUTH"))
        }
        #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(table)") == 4)
    }

    /// Checks that keyed writes in one group run once each: sent twice at once under the same keys while the lock
    /// is held, every key's row exists once and both answers of a key agree (or one is 409, still running).
    @Test func keyedWritesInAGroup_runOnce() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT)")
        let keys = (0..<6).map { _ in "gk-" + UUID().uuidString }
        var requests: [(path: String, body: String, key: String?)] = []
        for key in keys + keys {
            requests.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES ('\#(key)') RETURNING id"}"#, key))
        }
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, keyedRequests: requests)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == requests.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        #expect(answers.allSatisfy { $0.status == 200 || $0.status == 409 }, "\(answers.map(\.bodyText))")
        for (index, key) in keys.enumerated() {
            #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(table) WHERE k = '\(key)'") == 1)
            let pair = [answers[index], answers[index + keys.count]].filter { $0.status == 200 }
            #expect(Set(pair.map(\.body)).count <= 1, "key \(index)")
        }
    }

    /// Checks that a request leaving a deferred foreign key violation fails alone (409
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, rolled back), as it does on one node, while the group's other requests are
    /// committed: the violation shows only at the group's `COMMIT`, after which each request runs again alone.
    @Test func deferredForeignKeyViolation_failsOnlyItsRequest() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[1]
        let parent = uniqueTableName("cgcp")
        let child = uniqueTableName("cgcc")
        try cluster.client(follower).update("CREATE TABLE \(parent)(id INTEGER PRIMARY KEY)")
        try cluster.client(follower).update(
            "CREATE TABLE \(child)(id INTEGER PRIMARY KEY, p INTEGER REFERENCES \(parent)(id) "
                + "DEFERRABLE INITIALLY DEFERRED)"
        )
        try cluster.client(follower).update("INSERT INTO \(parent)(id) VALUES (1)")
        var bodies: [(path: String, body: String)] = []
        for _ in 0..<5 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(child)(p) VALUES (1)"}"#))
        }
        bodies.append(("/update", #"{"sql": "INSERT INTO \#(child)(p) VALUES (42)"}"#))
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, requests: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        for index in 0..<5 {
            #expect(answers[index].status == 200, "\(answers[index].bodyText)")
        }
        #expect(answers[5].status == 409, "\(answers[5].bodyText)")
        #expect(answers[5].bodyText.contains("SQLITE_CONSTRAINT_FOREIGNKEY"), "\(answers[5].bodyText)")
        #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(child)") == 5)
    }

    /// Checks that a one-statement request that fails part way (`INSERT OR FAIL` of two rows, the second taken)
    /// leaves nothing in a group, as the local group commit's savepoint does, while plain one-statement requests
    /// (run without a savepoint of their own) and a failing one among them keep only their own effects.
    @Test func oneStatementRequests_failAloneAndOrFailKeepsNothing() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT UNIQUE)")
        try cluster.client(follower).update("INSERT INTO \(table)(k) VALUES ('taken'), ('pre')")
        var bodies: [(path: String, body: String)] = []
        for index in 0..<4 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["p\#(index)"]}"#))
        }
        bodies.append(("/update", #"{"sql": "INSERT OR FAIL INTO \#(table)(k) VALUES ('f1'), ('taken')"}"#))
        bodies.append(("/update", #"{"sql": "UPDATE \#(table) SET k = 'taken' WHERE k = 'pre'"}"#))
        for index in 4..<8 {
            bodies.append(("/update", #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["p\#(index)"]}"#))
        }
        let answers = try Self.whileLeaderLockIsHeld(cluster) { () throws -> ConcurrentWrites in
            let writes = ConcurrentWrites(cluster: cluster, node: follower, requests: bodies)
            try waitFor("the writes to be sent", timeoutSeconds: 10) { writes.started == bodies.count }
            usleep(500_000)
            return writes
        }.waitForAll()
        #expect(answers[4].status == 409, "\(answers[4].bodyText)")
        #expect(answers[5].status == 409, "\(answers[5].bodyText)")
        for index in [0, 1, 2, 3, 6, 7, 8, 9] {
            #expect(answers[index].status == 200, "request \(index): \(answers[index].bodyText)")
        }
        let keys = try cluster.client(follower).ok(
            "/query",
            #"{"sql": "SELECT k FROM \#(table) ORDER BY k", "shape": "arrays"}"#
        )
        let stored = Set((keys["rows"]?.arrayValue ?? []).compactMap { $0[0]?.stringValue })
        #expect(stored == Set((0..<8).map { "p\($0)" } + ["taken", "pre"]))
    }

    /// Checks that a lone request (no lock held, so no group forms: autocommit mode on the leader) that fails part
    /// way keeps nothing either — `INSERT OR FAIL`, a column's `ON CONFLICT FAIL`, a `/batch` statement —, as in a
    /// group and as locally. (A lone `/update` used to keep, and commit, the rows before the failing one.)
    @Test func loneRequests_failingPartWayKeepNothing() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let client = try cluster.client(follower)
        let table = uniqueTableName("cgc")
        let failing = uniqueTableName("cgf")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT UNIQUE)")
        try client.update("CREATE TABLE \(failing)(k TEXT UNIQUE ON CONFLICT FAIL)")
        try client.update("INSERT INTO \(table)(k) VALUES ('taken')")
        let node = try HTTPTestClient(baseURL: cluster.nodes[follower - 1].baseURL, timeoutSeconds: 20)
        let orFail = try node.postJSON(
            "/update",
            text: #"{"sql": "INSERT OR FAIL INTO \#(table)(k) VALUES ('f1'), ('taken')"}"#
        )
        #expect(orFail.status == 409, "\(orFail.bodyText)")
        let clause = try node.postJSON(
            "/update",
            text: #"{"sql": "INSERT INTO \#(failing)(k) VALUES ('a'), ('b'), ('a')"}"#
        )
        #expect(clause.status == 409, "\(clause.bodyText)")
        let batch = try node.postJSON(
            "/batch",
            text:
                #"{"statements": [{"sql": "INSERT INTO \#(table)(k) VALUES ('b1')"}, {"sql": "INSERT OR FAIL INTO \#(table)(k) VALUES ('f2'), ('taken')"}]}"#
        )
        #expect(batch.status == 409, "\(batch.bodyText)")
        #expect(try client.scalarInt("SELECT count(*) FROM \(failing)") == 0)
        let keys = try client.ok("/query", #"{"sql": "SELECT k FROM \#(table) ORDER BY k", "shape": "arrays"}"#)
        let stored = (keys["rows"]?.arrayValue ?? []).compactMap { $0[0]?.stringValue }
        #expect(stored == ["b1", "taken"])
    }

    /// Checks that a lone `/transaction` meeting the leader's write lock held (by another connection, for longer
    /// than the request's `timeout_ms`) waits for it until its own time limit only, then is 503 `SQLITE_BUSY` with
    /// `Retry-After`, and changed nothing. (Its `BEGIN IMMEDIATE` used to wait out the cluster client's 10 s call
    /// timeout: the client below, which gives up after 8 s, would have seen no answer while the lock was held.)
    @Test func aLoneTransactionMeetingTheHeldLock_isBusyAtItsTimeLimit() throws {
        let cluster = try SharedCluster.get(.heldLeaderLock)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("cgc")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, k TEXT)")
        let answer = try Self.whileLeaderLockIsHeld(cluster) { () throws -> HTTPTestResponse in
            let client = try HTTPTestClient(baseURL: cluster.nodes[follower - 1].baseURL, timeoutSeconds: 8)
            return try client.postJSON(
                "/transaction",
                text: #"{"statements": [{"sql": "INSERT INTO \#(table)(k) VALUES ('x')"}], "timeout_ms": 500}"#
            )
        }
        #expect(answer.status == 503, "\(answer.bodyText)")
        #expect(answer.bodyText.contains(#""code":"SQLITE_BUSY""#), "\(answer.bodyText)")
        #expect(answer.header("Retry-After") == "1")
        #expect(try cluster.client(follower).scalarInt("SELECT count(*) FROM \(table)") == 0)
    }

    /// Runs `body` while a raw wire client holds the leader's write lock (`BEGIN IMMEDIATE`), then releases it.
    private static func whileLeaderLockIsHeld<T>(_ cluster: SharedCluster, _ body: () throws -> T) throws -> T {
        let leader = try cluster.leaderID()
        let connection = try DqliteConnection(address: cluster.nodes[leader - 1].raftAddress)
        defer { connection.close() }
        let database = try connection.open("sqlited")
        // Other suites write to the shared cluster meanwhile: their transactions hold the lock a moment at a time.
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                _ = try connection.exec(sql: "BEGIN IMMEDIATE", database: database)
                break
            } catch {
                guard error.kind == .failure, error.code & 0xff == 5, Date() < deadline else { throw error }
                usleep(1_000)
            }
        }
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? connection.exec(sql: "ROLLBACK", database: database)
            throw error
        }
        _ = try connection.exec(sql: "ROLLBACK", database: database)
        return value
    }
}

/// The cluster node's group commit series from `GET /metrics`: groups committed and requests in them.
struct GroupSeries {
    let groups: Int
    let requests: Int

    init(_ client: HTTPTestClient) throws {
        let text = try client.get("/metrics").bodyText
        func value(_ name: String) -> Int {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
        }
        groups = value("sqlited_group_commits_total")
        requests = value("sqlited_group_commit_requests_sum")
    }
}

/// Writes sent at once, one thread and one connection each, to one node; their answers in the order given.
final class ConcurrentWrites: Sendable {
    private let state = Mutex<(started: Int, answers: [Int: HTTPTestResponse])>((0, [:]))
    private let group = DispatchGroup()
    private let count: Int

    convenience init(cluster: SharedCluster, node: Int, path: String, bodies: [String]) {
        self.init(cluster: cluster, node: node, keyedRequests: bodies.map { (path, $0, nil) })
    }

    convenience init(cluster: SharedCluster, node: Int, requests: [(path: String, body: String)]) {
        self.init(cluster: cluster, node: node, keyedRequests: requests.map { ($0.path, $0.body, nil) })
    }

    init(cluster: SharedCluster, node: Int, keyedRequests: [(path: String, body: String, key: String?)]) {
        count = keyedRequests.count
        for (index, request) in keyedRequests.enumerated() {
            group.enter()
            Thread { [self] in
                defer { group.leave() }
                guard let client = try? cluster.client(node) else { return }
                state.withLock { $0.started += 1 }
                let headers = request.key.map { [("Idempotency-Key", $0)] } ?? []
                guard let response = try? client.postJSON(request.path, text: request.body, headers: headers) else {
                    return
                }
                state.withLock { $0.answers[index] = response }
            }.start()
        }
    }

    var started: Int { state.withLock { $0.started } }

    var answeredCount: Int { state.withLock { $0.answers.count } }

    /// Waits (at most 60 s) for every answer; a request that got none is a failed expectation.
    func waitForAll() -> [HTTPTestResponse] {
        let finished = group.wait(timeout: .now() + 60) == .success
        #expect(finished, "writes still unanswered after 60 s")
        let answers = state.withLock { $0.answers }
        #expect(answers.count == count, "\(count - answers.count) writes got no answer")
        return (0..<count).compactMap { answers[$0] }
    }
}
