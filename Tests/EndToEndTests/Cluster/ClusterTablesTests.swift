import Foundation
import Testing

/// The Tables API's reads on the cluster: the same status and body as a local `sqlited` (``SharedSqlited``),
/// through a follower and through the leader (``SharedCluster``); the writes answer 501.
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

    /// The writes of the Tables API answer 501 `NOT_IMPLEMENTED` on the cluster and change nothing; a method
    /// that no Tables endpoint takes is 405 as locally.
    @Test func writes_areNotImplemented() throws {
        let local = try SharedSqlited.get().makeClient()
        let cluster = try SharedCluster.get()
        let table = try Self.makeTable(local: local, cluster: cluster)
        let node = try cluster.client(try cluster.followerIDs()[0])
        let insert = try node.post("/tables/\(table)/rows", #"{"rows": [{"name": "eve"}]}"#)
        #expect(insert.status == 501)
        #expect(try insert.json()["error"]?["code"]?.stringValue == "NOT_IMPLEMENTED")
        #expect(try node.get("/tables/\(table)/count").json()["count"]?.int64Value == 5)
        let wrongMethod = try node.post("/tables/\(table)/count", "{}")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.bodyText == (try local.post("/tables/\(table)/count", "{}")).bodyText)
    }
}
