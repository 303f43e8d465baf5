import Testing

/// The same requests to a local `sqlited` (``SharedSqlited``) and to a follower and the leader of the cluster
/// (``SharedCluster``) get the same status and the same body: results and errors alike.
@Suite struct ClusterParityTests {
    /// Each request after the same schema; `TABLE` is replaced by a table of the test's own.
    @Test(arguments: [
        ("/query", #"{"sql": "SELECT * FROM TABLE ORDER BY id"}"#),
        ("/query", #"{"sql": "SELECT id AS a, name AS a FROM TABLE WHERE id = :id", "params": {"id": 1}}"#),
        (
            "/query",
            #"{"sql": "SELECT 1.5e300 * 1e10 AS inf, -0.0 AS z, 9007199254740993 AS big", "#
                + #""int64_as_string": true}"#
        ),
        ("/query", #"{"sql": "SELECT * FROM TABLE", "max_rows": 1}"#),
        ("/query", #"{"sql": "SELECT id, abs(-9223372036854775807 - id) FROM TABLE ORDER BY id"}"#),
        ("/query", #"{"sql": "SELEC 1"}"#),
        ("/query", #"{"sql": "SELECT * FROM no_such_table_here"}"#),
        ("/query", #"{"sql": "SELECT nope FROM TABLE"}"#),
        ("/query", #"{"sql": "SELECT 1; SELECT 2"}"#),
        ("/query", #"{"sql": "INSERT INTO TABLE(name) VALUES ('x')"}"#),
        ("/query", #"{"sql": "PRAGMA user_version = 3"}"#),
        // A pragma's table-valued form: denied with the policy's reason on both storages (issue #23), allowed ones
        // answered alike, a table a client named like one read as a table.
        ("/query", #"{"sql": "SELECT * FROM pragma_database_list"}"#),
        ("/query", #"{"sql": "SELECT count(*) AS c FROM pragma_compile_options() WHERE 0"}"#),
        ("/query", #"{"sql": "SELECT name FROM pragma_table_info('TABLE') ORDER BY cid"}"#),
        ("/query", #"{"sql": "SELECT 0 * user_version AS z FROM pragma_user_version"}"#),
        ("/query", #"{"sql": "SELECT ?", "params": []}"#),
        ("/query", #"{"sql": "SELECT :a", "params": {"b": 1}}"#),
        ("/update", #"{"sql": "BEGIN"}"#),
        ("/update", #"{"sql": "SAVEPOINT s"}"#),
        ("/update", #"{"sql": "INSERT INTO TABLE(id, name) VALUES (1, 'dup')"}"#),
        ("/update", #"{"sql": "INSERT INTO TABLE(name) VALUES (NULL)"}"#),
        ("/update", #"{"sql": "ATTACH 'x.db' AS x"}"#),
        ("/update", #"{"sql": "UPDATE TABLE SET name = name WHERE id > 100"}"#),
        (
            "/batch",
            #"{"statements": [{"sql": "SELECT count(*) AS c FROM TABLE"}, {"sql": "SELECT * FROM nope"}, "#
                + #"{"sql": "SELECT 2"}], "continue_on_error": true}"#
        ),
        ("/batch", #"{"script": "SELECT 1 AS one; SELECT * FROM nope; SELECT 3"}"#),
        ("/batch", #"{"script": "  -- nothing\n"}"#),
        (
            "/transaction",
            #"{"statements": [{"sql": "SELECT count(*) AS c FROM TABLE"}, "#
                + #"{"sql": "INSERT INTO TABLE(id, name) VALUES (2, 'dup')"}]}"#
        ),
        (
            "/transaction",
            #"{"statements": [{"sql": "SAVEPOINT a"}, {"sql": "SELECT name FROM TABLE WHERE id = 1"}, "#
                + #"{"sql": "RELEASE a"}]}"#
        ),
    ])
    func sameRequest_sameAnswerAsLocalBackend(path: String, body: String) throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = uniqueTableName("cp")
        let setup = [
            "CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB)",
            "INSERT INTO \(table) VALUES (1, 'ann', 1.0, x'00ff'), (2, 'bob', NULL, NULL), (3, 'cy', -2.5, x'')",
        ]
        let writer = try cluster.client(try cluster.leaderID())
        for sql in setup {
            try local.ok("/update", #"{"sql": "\#(sql)"}"#)
            try writer.ok("/update", #"{"sql": "\#(sql)"}"#)
        }
        let request = body.replacingOccurrences(of: "TABLE", with: table)
        let expected = try local.post(path, request)
        // Through a follower and through the leader (the requests above change nothing that the next one reads).
        for id in [try cluster.followerIDs()[0], try cluster.leaderID()] {
            let actual = try cluster.client(id).post(path, request)
            #expect(actual.status == expected.status, "node \(id): \(path) \(request)")
            #expect(actual.bodyText == expected.bodyText, "node \(id): \(path) \(request)")
        }
    }

    /// Writes that return rows or run several times (`RETURNING`, `params_batch`, a batch script that creates and
    /// fills a table) answer as on the local backend; each runs once, on a table of its own on each side.
    @Test(arguments: [
        ("/update", #"{"sql": "INSERT INTO TABLE(name) VALUES (?), (?) RETURNING id, name", "params": ["r", "s"]}"#),
        ("/update", #"{"sql": "UPDATE TABLE SET score = 0 WHERE id <= 2 RETURNING id"}"#),
        ("/update", #"{"sql": "INSERT INTO TABLE(name) VALUES (?)", "params_batch": [["p"], ["q"]]}"#),
        ("/update", #"{"sql": "DELETE FROM TABLE WHERE id = 3"}"#),
        ("/update", #"{"sql": "INSERT INTO TABLE(id, name) VALUES (4, 'd'), (1, 'x') RETURNING id"}"#),
        ("/batch", #"{"script": "CREATE TABLE TABLE_b(x); INSERT INTO TABLE_b VALUES (1); SELECT * FROM TABLE_b"}"#),
    ])
    func write_sameAnswerAsLocalBackend(path: String, body: String) throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let follower = try cluster.client(try cluster.followerIDs()[0])
        let table = uniqueTableName("cr")
        for client in [local, follower] {
            try client.ok(
                "/update",
                #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, name TEXT, score REAL)"}"#
            )
            try client.ok("/update", #"{"sql": "INSERT INTO \#(table)(name) VALUES ('a'), ('b'), ('c')"}"#)
        }
        let request = body.replacingOccurrences(of: "TABLE", with: table)
        let expected = try local.post(path, request)
        let actual = try follower.post(path, request)
        #expect(actual.status == expected.status, "\(path) \(request)")
        #expect(actual.bodyText == expected.bodyText, "\(path) \(request)")
    }

    /// `GET /schema/{table}` answers as on the local backend, and `GET /schema` lists the table's objects with the
    /// same SQL text, through a follower and through the leader.
    @Test func schema_sameAnswerAsLocalBackend() throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = uniqueTableName("cz")
        let setup = [
            "create table if not exists \(table)(id integer primary key, name TEXT NOT NULL DEFAULT 'x', "
                + "score REAL, UNIQUE(name, score))",
            "CREATE INDEX \(table)_score ON \(table)(score)",
            "CREATE VIEW \(table)_v AS SELECT id, upper(name) AS n FROM \(table)",
        ]
        for sql in setup {
            try local.ok("/update", #"{"sql": "\#(sql)"}"#)
            try cluster.client(1).ok("/update", #"{"sql": "\#(sql)"}"#)
        }
        func objects(_ schema: JSONValue) -> [JSONValue] {
            (schema["objects"]?.arrayValue ?? []).filter {
                $0["tbl_name"]?.stringValue?.hasPrefix(table) == true
            }
        }
        let expectedObjects = objects(try local.get("/schema").json())
        #expect(expectedObjects.count == 3)
        for id in [try cluster.followerIDs()[0], try cluster.leaderID()] {
            let client = try cluster.client(id)
            #expect(objects(try client.get("/schema").json()) == expectedObjects, "node \(id)")
            for path in ["/schema/\(table.uppercased())", "/schema/\(table)_v", "/schema/\(table)_nope"] {
                let expected = try local.get(path)
                let actual = try client.get(path)
                #expect(actual.status == expected.status, "node \(id) \(path)")
                #expect(actual.bodyText == expected.bodyText, "node \(id) \(path)")
            }
        }
    }
}
