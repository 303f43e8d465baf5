import Foundation
import Testing

/// The Tables API's reads on the cluster: the same status and body as a local `sqlited` (``SharedSqlited``),
/// through a follower and through the leader (``SharedCluster``); the writes likewise (issue #24).
@Suite struct ClusterTablesTests {
    /// The body with every cursor (`"next"`, `"prev"`) replaced by `"CURSOR"`: cursors are signed with a key of the
    /// process that made them, so only whether one is there can be compared between processes.
    static func withoutCursors(_ body: String) -> String {
        body.replacingOccurrences(of: #""(next|prev)":"[^"]*""#, with: #""$1":"CURSOR""#, options: .regularExpression)
    }

    /// The same schema and rows on the local server and on the cluster, in a table of the test's own.
    static func makeTable(local: HTTPTestClient, cluster: SharedCluster) throws -> String {
        let table = uniqueTableName("ct")
        let setup = [
            "CREATE TABLE \(table)(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB, big INTEGER)",
            "INSERT INTO \(table) VALUES (1, 'ann', 1.0, x'00ff', 9007199254740993), (2, 'bob', NULL, NULL, 2), "
                + "(3, 'cy', -2.5, x'', NULL), (4, 'dee', 2.5, NULL, 4), (5, 'bob', 0.5, NULL, 5)",
        ]
        let writer = try cluster.client(try cluster.leaderID())
        for sql in setup {
            try local.ok("/update", #"{"sql": "\#(sql)"}"#)
            try writer.ok("/update", #"{"sql": "\#(sql)"}"#)
        }
        return table
    }

    /// Each read of the contract (rows with filters, order, limits, shapes, counts; a row by key; count; the
    /// errors: no such table, row or column, a bad key, an unknown option, a bad cursor) answers as locally.
    @Test(arguments: [
        "/tables/TABLE/rows",
        "/tables/TABLE/rows?_limit=2",
        "/tables/TABLE/rows?_limit=2&_order=-score&_count=true",
        "/tables/TABLE/rows?name=bob&_shape=arrays",
        "/tables/TABLE/rows?name=bob&name=cy&_columns=name,big&_int64_as_string=true",
        "/tables/TABLE/rows?score__gt=0&score__isnull=false&_order=name,-id",
        "/tables/TABLE/rows?big__lte=4&data__isnull=true",
        "/tables/TABLE/rows?id=x",
        "/tables/TABLE/rows?_bogus=1",
        "/tables/TABLE/rows?nope=1",
        "/tables/TABLE/rows?_after=not-a-cursor",
        "/tables/TABLE/rows/1",
        "/tables/TABLE/rows/3?_shape=arrays",
        "/tables/TABLE/rows/1?_columns=big&_int64_as_string=true",
        "/tables/TABLE/rows/99",
        "/tables/TABLE/rows/1,2",
        "/tables/TABLE/count",
        "/tables/TABLE/count?name=bob",
        "/tables/no_such_table_here/rows",
        "/tables/sqlite_master/count",
    ])
    func read_sameAnswerAsLocalBackend(path: String) throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let request = path.replacingOccurrences(of: "TABLE", with: table)
        let expected = try local.get(request)
        for id in [try cluster.followerIDs()[0], try cluster.leaderID()] {
            let actual = try cluster.client(id).get(request)
            #expect(actual.status == expected.status, "node \(id): \(request)")
            #expect(
                Self.withoutCursors(actual.bodyText) == Self.withoutCursors(expected.bodyText),
                "node \(id): \(request)"
            )
        }
    }

    /// Paging through a node with its own cursors, forward then back, returns every row once, in order, as the
    /// local server pages them; `GET /tables` lists the table with its key and columns as locally.
    @Test func paging_andTableList() throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let node = try cluster.client(try cluster.followerIDs()[0])
        func pages(_ client: HTTPTestClient) throws -> [String] {
            let base = "/tables/\(table)/rows?_limit=2&_order=-name"
            var bodies: [String] = []
            var cursors: [String] = []
            var path = base
            while bodies.count < 10 {
                let response = try client.get(path)
                #expect(response.status == 200, "\(path) → \(response.bodyText)")
                bodies.append(Self.withoutCursors(response.bodyText))
                guard let next = try response.json()["next"]?.stringValue else { break }
                cursors.append(next)
                path = base + "&_after=" + next
            }
            // Back: the page before the last row of the second page.
            if cursors.count >= 2 {
                bodies.append(Self.withoutCursors(try client.get(base + "&_before=" + cursors[1]).bodyText))
            }
            return bodies
        }
        let expected = try pages(local)
        #expect(expected.count >= 3)
        #expect(try pages(node) == expected)

        let localList = try local.get("/tables").json()
        let clusterList = try node.get("/tables").json()
        let entry = { (list: JSONValue) in list["tables"]?.arrayValue?.first { $0["name"]?.stringValue == table } }
        #expect(entry(clusterList) != nil)
        #expect(entry(clusterList) == entry(localList))
    }

    /// Each write of the contract (issue #24: no 501 left) answers as on a local server, through a follower, and
    /// leaves the same rows: inserts with each `on_conflict`, a failing row (its index, nothing kept), a patch, a
    /// delete by key and by filters, and their errors.
    @Test(arguments: [
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"id": 10, "name": "eve", "score": 1.5}, {"name": "fay"}]}"#),
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"id": 1, "name": "dup"}], "on_conflict": "ignore"}"#),
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"id": 2, "score": 7}], "on_conflict": "update"}"#),
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"id": 11, "name": "ok"}, {"id": 12}]}"#),
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"id": 1, "name": "dup"}]}"#),
        ("POST", "/tables/TABLE/rows", #"{"rows": [{"nope": 1}]}"#),
        (
            "POST", "/tables/TABLE/rows",
            #"{"rows": [{"id": 13, "name": "big", "big": 9007199254740993}], "#
                + #""int64_as_string": true}"#
        ),
        ("PATCH", "/tables/TABLE/rows/3", #"{"score": 9, "data": {"base64": "AAE="}}"#),
        ("PATCH", "/tables/TABLE/rows/99", #"{"score": 9}"#),
        ("DELETE", "/tables/TABLE/rows/4", ""),
        ("DELETE", "/tables/TABLE/rows/99", ""),
        ("DELETE", "/tables/TABLE/rows?name=bob", ""),
        ("DELETE", "/tables/TABLE/rows", ""),
        ("POST", "/tables/no_such_table_here/rows", #"{"rows": [{"a": 1}]}"#),
    ])
    func write_sameAnswerAsLocalBackend(method: String, path: String, body: String) throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let node = try cluster.client(try cluster.followerIDs()[0])
        let target = path.replacingOccurrences(of: "TABLE", with: table)
        func send(_ client: HTTPTestClient) throws -> HTTPTestResponse {
            try client.request(
                method: method,
                path: target,
                headers: body.isEmpty ? [] : [("Content-Type", "application/json")],
                body: body.isEmpty ? nil : Array(body.utf8)
            )
        }
        let expected = try send(local)
        let actual = try send(node)
        #expect(actual.status == expected.status, "\(method) \(target)")
        #expect(actual.bodyText == expected.bodyText, "\(method) \(target)")
        let rows = "/tables/\(table)/rows?_limit=100"
        #expect(try node.get(rows).bodyText == (try local.get(rows)).bodyText, "rows after \(method) \(target)")
    }

    /// A cursor made by one node pages on every node of the cluster (they share the key, kept in the replicated
    /// database), and is still refused by a local server (another key); the key's table is nobody's to read.
    @Test func cursor_fromOneNode_isValidOnEveryNode_andRefusedElsewhere() throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let base = "/tables/\(table)/rows?_limit=2&_order=name"
        let first = try cluster.client(1).get(base)
        #expect(first.status == 200)
        let cursor = try #require(try first.json()["next"]?.stringValue)
        let pages = try (1...3).map { id in try cluster.client(id).get(base + "&_after=" + cursor) }
        for page in pages {
            #expect(page.status == 200, "\(page.bodyText)")
            #expect(Self.withoutCursors(page.bodyText) == Self.withoutCursors(pages[0].bodyText))
        }
        let elsewhere = try local.get(base + "&_after=" + cursor)
        #expect(elsewhere.status == 400)
        #expect(try elsewhere.json()["error"]?["code"]?.stringValue == "INVALID_REQUEST")
        // The key lives in the server's own table: clients' SQL cannot read it, and it is listed nowhere.
        let node = try cluster.client(2)
        let read = try node.post("/query", #"{"sql": "SELECT key FROM _sqlited_cursor_key"}"#)
        #expect(read.status >= 400, "\(read.bodyText)")
        #expect(!read.bodyText.contains("\"rows\""))
        #expect(try node.get("/tables/_sqlited_cursor_key/rows").status == 404)
        #expect(!(try node.get("/schema").bodyText.contains("_sqlited_")))
        #expect(!(try node.get("/tables").bodyText.contains("_sqlited_")))
    }

    /// A method that no Tables endpoint takes is 405 as locally.
    @Test func wrongMethod_isAnsweredAsLocally() throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let node = try cluster.client(try cluster.followerIDs()[0])
        let wrongMethod = try node.post("/tables/\(table)/count", "{}")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.bodyText == (try local.post("/tables/\(table)/count", "{}")).bodyText)
    }
}
