import Dispatch
import LoopbackTestSupport
import Synchronization
import Testing

/// Cluster mode end to end: three `sqlited` processes, each embedding a dqlite node, each answering every request
/// through the leader (``SharedCluster``).
@Suite struct ClusterModeTests {
    /// Every node reports the same three voters and the same leader, and itself; `/health` is ok on each.
    @Test func cluster_everyNodeReportsThreeVotersAndOneLeader() throws {
        let cluster = try SharedCluster.get()
        var leaders: Set<Int64> = []
        for node in cluster.nodes {
            let client = try cluster.client(node.id)
            let status = try client.get("/cluster")
            #expect(status.status == 200)
            let body = try status.json()
            #expect(body["node"]?["id"]?.int64Value == Int64(node.id))
            #expect(body["node"]?["address"]?.stringValue == node.raftAddress)
            let members = body["nodes"]?.arrayValue ?? []
            #expect(members.count == 3)
            #expect(members.allSatisfy { $0["role"]?.stringValue == "voter" })
            #expect(members.filter { $0["leader"] == .bool(true) }.count == 1)
            if let leader = body["leader"]?["id"]?.int64Value { leaders.insert(leader) }
            let health = try client.get("/health")
            #expect(health.status == 200)
            #expect(try health.json()["status"]?.stringValue == "ok")
            #expect(try client.get("/metrics").status == 200)
        }
        #expect(leaders.count == 1)
    }

    /// Writes through a follower (`/update`, `/batch`, `/transaction`) are read back, typed exactly, through the
    /// other follower and through the leader: every read goes to the leader, so it sees every acknowledged write.
    @Test func writesThroughFollower_areReadThroughEveryNode() throws {
        let cluster = try SharedCluster.get()
        let followers = try cluster.followerIDs()
        let leader = try cluster.leaderID()
        let writer = try cluster.client(followers[0])
        let table = uniqueTableName("cw")
        try writer.ok(
            "/update",
            #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT, b BLOB)"}"#
        )
        let inserted = try writer.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(n, r, t, b) VALUES (?, ?, ?, ?)", "params": [9223372036854775807, 1.0, "ann", {"base64": "AP8="}]}"#
        )
        #expect(inserted["changes"]?.int64Value == 1)
        #expect(inserted["last_insert_rowid"]?.int64Value == 1)
        let batch = try writer.ok(
            "/batch",
            #"{"statements": [{"sql": "INSERT INTO \#(table)(n, t) VALUES (:n, :t)", "params": {"n": 2, "t": "bob"}}, {"sql": "UPDATE \#(table) SET r = 2.5 WHERE n = 2"}]}"#
        )
        #expect(batch["results"]?[0]?["last_insert_rowid"]?.int64Value == 2)
        #expect(batch["results"]?[1]?["changes"]?.int64Value == 1)
        #expect(batch["results"]?[1]?["last_insert_rowid"] == .null)
        let transaction = try writer.ok(
            "/transaction",
            #"{"statements": [{"sql": "INSERT INTO \#(table)(n) VALUES (3)"}, {"sql": "SELECT count(*) AS c FROM \#(table)"}]}"#
        )
        #expect(transaction["results"]?[1]?["rows"]?[0]?["c"]?.int64Value == 3)

        let read = #"{"sql": "SELECT id, n, r, t, b FROM \#(table) ORDER BY id", "shape": "arrays"}"#
        let expected = """
            {"columns":["id","n","r","t","b"],"types":["INTEGER","INTEGER","REAL","TEXT","BLOB"],\
            "rows":[[1,9223372036854775807,1.0,"ann",{"base64":"AP8="}],[2,2,2.5,"bob",null],[3,3,null,null,null]]}
            """
        for id in [followers[1], leader] {
            let response = try cluster.client(id).post("/query", read)
            #expect(response.status == 200)
            #expect(response.bodyText == expected, "through node \(id)")
        }
    }

    /// A failed `/transaction` through a follower rolls everything back, reports the failing statement, and
    /// leaves nothing behind on any node; a `params_batch` is all or nothing too.
    @Test func failedTransactionThroughFollower_leavesNothing() throws {
        let cluster = try SharedCluster.get()
        let followers = try cluster.followerIDs()
        let writer = try cluster.client(followers[0])
        let table = uniqueTableName("ct")
        try writer.ok("/update", #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY)"}"#)
        let failed = try writer.post(
            "/transaction",
            #"{"statements": [{"sql": "INSERT INTO \#(table) VALUES (1)"}, {"sql": "INSERT INTO \#(table) VALUES (1)"}]}"#
        )
        #expect(failed.status == 409)
        let error = try failed.json()["error"]
        #expect(error?["code"]?.stringValue == "SQLITE_CONSTRAINT_PRIMARYKEY")
        #expect(error?["statement_index"]?.int64Value == 1)
        #expect(error?["rolled_back"] == .bool(true))
        let batch = try writer.post(
            "/update",
            #"{"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[5], [6], [5]]}"#
        )
        #expect(batch.status == 409)
        let count = try cluster.client(followers[1]).ok("/query", #"{"sql": "SELECT count(*) AS c FROM \#(table)"}"#)
        #expect(count["rows"]?[0]?["c"]?.int64Value == 0)
    }

    /// Transactions and `params_batch` writes sent at once through every node all succeed, each exactly once:
    /// those that meet another node's transaction holding the leader's write lock (`SQLITE_BUSY`) run again.
    @Test func concurrentTransactionsThroughEveryNode_allCommitOnce() throws {
        let cluster = try SharedCluster.get()
        let table = uniqueTableName("cc")
        try cluster.client(1).ok("/update", #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, v INTEGER)"}"#)
        let statuses = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for worker in 0..<6 {
            let node = worker % 3 + 1
            onNewThread(group: group) {
                guard let client = try? cluster.client(node) else { return }
                for round in 0..<10 {
                    let value = worker * 100 + round
                    let body =
                        round.isMultiple(of: 2)
                        ? #"{"statements": [{"sql": "INSERT INTO \#(table)(v) VALUES (\#(value))"}, "#
                            + #"{"sql": "SELECT count(*) FROM \#(table)"}]}"#
                        : #"{"sql": "INSERT INTO \#(table)(v) VALUES (?)", "params_batch": [[\#(value)], [-1]]}"#
                    let response = try? client.post(round.isMultiple(of: 2) ? "/transaction" : "/update", body)
                    statuses.withLock { $0.append(response?.status ?? 0) }
                    if let response, response.status != 200 {
                        failures.withLock { $0.append("node \(node): \(response.status) \(response.bodyText)") }
                    }
                }
            }
        }
        group.wait()
        let answered = statuses.withLock { $0 }
        #expect(answered.count == 60)
        #expect(answered.allSatisfy { $0 == 200 }, "\(failures.withLock { $0 })")
        let counts = try cluster.client(2).ok(
            "/query",
            #"{"sql": "SELECT count(*) AS n, count(DISTINCT v) AS d FROM \#(table)", "shape": "arrays"}"#
        )
        // 30 transactions of one row, 30 params_batch of two (one of them -1 each time).
        #expect(counts["rows"] == .array([.array([.number("90"), .number("61")])]))
    }

    /// DDL undone on the leader (`ROLLBACK TO` inside a committed `/transaction`) is undone on this node's copy of
    /// the schema too: the table can be created afterwards, and does not exist before.
    @Test func ddlRolledBackToSavepoint_isNotKeptByTheNode() throws {
        let cluster = try SharedCluster.get()
        let client = try cluster.client(try cluster.followerIDs()[0])
        let table = uniqueTableName("cs")
        try client.ok(
            "/transaction",
            #"{"statements": [{"sql": "SAVEPOINT a"}, {"sql": "CREATE TABLE \#(table)(x)"}, "#
                + #"{"sql": "ROLLBACK TO a"}, {"sql": "RELEASE a"}]}"#
        )
        let missing = try client.post("/query", #"{"sql": "SELECT * FROM \#(table)"}"#)
        #expect(missing.status == 400)
        #expect(try missing.json()["error"]?["message"]?.stringValue == "no such table: \(table)")
        try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(x)"}"#)
    }

    /// `/query` refuses a statement that would write, whether this node's copy of the schema can tell (CREATE)
    /// or only the leader's read-only connection can; nothing is written.
    @Test func queryWithWrite_isRefused() throws {
        let cluster = try SharedCluster.get()
        let client = try cluster.client(try cluster.followerIDs()[0])
        let table = uniqueTableName("cq")
        try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(x)"}"#)
        for sql in ["INSERT INTO \(table) VALUES (1)", "CREATE TABLE \(table)_b(x)", "DELETE FROM \(table)"] {
            let response = try client.post("/query", #"{"sql": "\#(sql)"}"#)
            #expect(response.status == 400, "\(sql)")
            #expect(try response.json()["error"]?["code"]?.stringValue == "READONLY_STATEMENT", "\(sql)")
        }
        let count = try client.ok("/query", #"{"sql": "SELECT count(*) AS c FROM \#(table)"}"#)
        #expect(count["rows"]?[0]?["c"]?.int64Value == 0)
    }

    /// A `/query` whose statement the leader has not answered within the request's time limit (`timeout_ms`) is
    /// 400 `TIMEOUT`, as on the local backend, not its rows when the leader gets there: counting 300,000 rows takes
    /// well over 20 ms on any machine (0.05 to 0.2 s in the sqlite3 shell), and it holds the leader's loop briefly
    /// while the leader finishes it (a million rows held it long enough, on a loaded machine, for another test's
    /// write to find no leader). The node's next request is answered as usual.
    @Test func queryPastItsTimeLimit_isTimeoutAndTheNodeGoesOn() throws {
        let cluster = try SharedCluster.get()
        let client = try cluster.client(try cluster.followerIDs()[0])
        let long = #"""
            {"sql": "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000) SELECT count(*) AS c FROM c", "timeout_ms": 20}
            """#
        // The leader's answer must be waited for and given up, not the check between statements, which says only
        // "the statement time limit was reached" and would pass the status and code without sending anything. That
        // check fires when the 20 ms go before the statement is sent (this node's copy of the schema rebuilt after
        // another test's DDL, on a loaded machine): every attempt is a TIMEOUT, and one of at most five the leader's.
        let leaderTimeout = "the statement time limit was reached before the cluster's leader answered"
        var messages: [String] = []
        while messages.count < 5 && messages.last != leaderTimeout {
            // Brings the node's copy of the schema up to date first, so that the 20 ms go to the leader.
            _ = try client.ok("/query", #"{"sql": "SELECT 1"}"#)
            let response = try client.post("/query", long)
            #expect(response.status == 400)
            #expect(try response.json()["error"]?["code"]?.stringValue == "TIMEOUT")
            messages.append(try response.json()["error"]?["message"]?.stringValue ?? "")
        }
        #expect(messages.last == leaderTimeout, "\(messages)")
        let next = try client.ok("/query", #"{"sql": "SELECT 41 + 1 AS v"}"#)
        #expect(next["rows"]?[0]?["v"]?.int64Value == 42)
    }

    /// Columns declared DATETIME, DATE, TIMESTAMP or BOOLEAN are refused with 400 (Debian's dqlite aborts the node on
    /// some of their values), by CREATE TABLE and ALTER TABLE alike, and nothing is created.
    @Test func timeAndBooleanColumns_areRefused() throws {
        let cluster = try SharedCluster.get()
        let client = try cluster.client(1)
        let table = uniqueTableName("cd")
        for sql in [
            "CREATE TABLE \(table)(x DATETIME)", "CREATE TABLE \(table)(x boolean)", "CREATE TABLE \(table)(x Date)",
        ] {
            let response = try client.post("/update", #"{"sql": "\#(sql)"}"#)
            #expect(response.status == 400, "\(sql)")
            #expect(try response.json()["error"]?["code"]?.stringValue == "INVALID_REQUEST", "\(sql)")
        }
        try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(x TEXT)"}"#)
        let altered = try client.post("/update", #"{"sql": "ALTER TABLE \#(table) ADD COLUMN y TIMESTAMP"}"#)
        #expect(altered.status == 400)
        let columns = try client.ok("/query", #"{"sql": "SELECT name FROM pragma_table_info('\#(table)')"}"#)
        #expect(columns["rows"]?.arrayValue?.count == 1)
    }

    /// `POST /backup` through a follower writes the leader's database (DUMP) as one SQLite file holding every
    /// acknowledged write: a local `sqlited` serves it.
    @Test func backupThroughFollower_isADatabaseWithTheWrites() throws {
        let cluster = try SharedCluster.get()
        let client = try cluster.client(try cluster.followerIDs()[1])
        let table = uniqueTableName("cb")
        try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(x)"}"#)
        try client.ok("/update", #"{"sql": "INSERT INTO \#(table) VALUES (?)", "params_batch": [[1], [2.5], ["c"]]}"#)
        let backup = try client.ok("/backup", "{}")
        let name = try #require(backup["file"]?.stringValue)
        #expect(name.hasPrefix("sqlited-") && name.hasSuffix(".db"))
        #expect((backup["size"]?.int64Value ?? 0) > 0)
        let file = cluster.backupDirectory.appendingPathComponent(name)
        let served = try ServerProcess.startSqlited(
            directory: cluster.backupDirectory,
            extraArguments: ["--database", file.path]
        )
        defer { _ = served.kill() }
        let rows = try served.makeClient().ok(
            "/query",
            #"{"sql": "SELECT x FROM \#(table) ORDER BY rowid", "shape": "arrays"}"#
        )
        #expect(rows["rows"] == .array([.array([.number("1")]), .array([.number("2.5")]), .array([.string("c")])]))
    }

    /// The local backend has no `GET /cluster` (404), as before cluster mode existed.
    @Test func localBackend_hasNoClusterEndpoint() throws {
        let response = try SharedSqlited.get().makeClient().get("/cluster")
        #expect(response.status == 404)
        #expect(try response.json()["error"]?["code"]?.stringValue == "NOT_FOUND")
    }

    /// `/admin/*` on the cluster (issue #24: no 501 left): `optimize` with `analyze` runs ANALYZE on the leader;
    /// `vacuum`, `checkpoint` and a plain `optimize` are 400 saying why dqlite cannot; a wrong method is the local
    /// server's 405.
    @Test func maintenance_runsOnTheLeaderOrSaysWhyNot() throws {
        let client = try SharedCluster.get().client(2)
        let local = try SharedSqlited.get().makeClient()
        let analyzed = try client.post("/admin/optimize", #"{"analyze": true}"#)
        #expect(analyzed.status == 200, "\(analyzed.bodyText)")
        #expect(analyzed.bodyText == #"{"analyzed":true}"#)
        for (path, says) in [
            ("/admin/vacuum", "VACUUM is not available in cluster mode"),
            ("/admin/checkpoint", "checkpoints its own write-ahead log"),
            ("/admin/optimize", "to run ANALYZE on the leader"),
        ] {
            let response = try client.post(path, "{}")
            #expect(response.status == 400, "\(path)")
            #expect(try response.json()["error"]?["code"]?.stringValue == "INVALID_REQUEST", "\(path)")
            #expect(response.bodyText.contains(says), "\(path): \(response.bodyText)")
        }
        let wrongMethod = try client.get("/admin/checkpoint")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.bodyText == (try local.get("/admin/checkpoint")).bodyText)
        let badBody = try client.post("/admin/checkpoint", #"{"mode": "sideways"}"#)
        #expect(badBody.bodyText == (try local.post("/admin/checkpoint", #"{"mode": "sideways"}"#)).bodyText)
    }
}

/// A node that belongs to no cluster yet (an id other than 1, no `cluster.join`: it waits for an operator to add
/// it) serves HTTP but is not ready.
@Suite struct ClusterNodeWithoutLeaderTests {
    /// `/health` is 503 with `Retry-After` while the node knows no leader, `GET /cluster` says so, and a statement
    /// fails with 503 `UNAVAILABLE` once the client's time to find a leader (10 s) is over.
    @Test func nodeWithoutLeader_isNotReadyAndAnswers503() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-e2ealone")
        let address = "127.0.0.1:\(try freeLoopbackPort())"
        let process = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--host", "127.0.0.1", "--port", "0", "--database", directory.path("unused.sqlite").path,
                "--cluster-node-id", "5", "--cluster-address", address,
                "--cluster-data-dir", directory.path("node5").path,
            ]
        )
        defer { _ = process.kill() }
        let client = try HTTPTestClient(baseURL: process.baseURL, timeoutSeconds: 30)
        let health = try client.get("/health")
        #expect(health.status == 503)
        #expect(health.header("Retry-After") == "1")
        #expect(try health.json()["error"]?["code"]?.stringValue == "UNAVAILABLE")
        let status = try client.get("/cluster").json()
        #expect(status["leader"] == .null)
        #expect(status["node"]?["address"]?.stringValue == address)
        let query = try client.post("/query", #"{"sql": "SELECT 1"}"#)
        #expect(query.status == 503)
        #expect(query.header("Retry-After") == "1")
        #expect(try query.json()["error"]?["code"]?.stringValue == "UNAVAILABLE")
    }
}
