import Foundation
import Testing

/// `/query` on the cluster in one wire round trip (issue #26): no schema-version trip before the statement, and a
/// schema changed through another node still answered as on one node.
@Suite(.serialized) struct ClusterReadRoundTripTests {
    /// Checks that 20 point reads through a follower cost 20 round trips of its read client (metrics), and 20
    /// `SELECT *` reads 20 too (each sends the leader's schema version check in the same write). On a cluster
    /// of its own: the shared one's follower also serves the other suites' reads, which the metric would count.
    @Test func queryThroughAFollower_isOneRoundTrip() throws {
        let cluster = try SharedCluster(networkLatencyMilliseconds: nil)
        let follower = try cluster.followerIDs()[0]
        let table = uniqueTableName("crt")
        try cluster.client(follower).update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v TEXT)")
        try cluster.client(follower).update("INSERT INTO \(table)(v) VALUES ('a'), ('b')")
        let client = try cluster.client(follower)
        // The first read may find the copy of the schema unchecked since the table was created: not counted.
        _ = try client.ok("/query", #"{"sql": "SELECT v FROM \#(table) WHERE id = 1"}"#)
        let before = try Self.readRoundTrips(client)
        for _ in 0..<20 {
            let rows = try client.ok("/query", #"{"sql": "SELECT v FROM \#(table) WHERE id = 1", "shape": "arrays"}"#)
            #expect(rows["rows"]?[0]?[0]?.stringValue == "a")
        }
        #expect(try Self.readRoundTrips(client) - before == 20)
        // A `*` sends `PRAGMA schema_version` with the statement: one round trip each.
        _ = try client.ok("/query", #"{"sql": "SELECT * FROM \#(table) WHERE id = 2"}"#)
        let beforeStars = try Self.readRoundTrips(client)
        for _ in 0..<20 {
            let rows = try client.ok("/query", #"{"sql": "SELECT * FROM \#(table) WHERE id = 2", "shape": "arrays"}"#)
            #expect(rows["rows"] == .array([.array([.number("2"), .string("b")])]))
        }
        #expect(try Self.readRoundTrips(client) - beforeStars == 20)
    }

    /// Checks that after a column is added, a table created and a table dropped through another node, `/query`
    /// through this node answers as on one node: the new column in `SELECT *`, the new table readable, the dropped
    /// one "no such table".
    @Test func schemaChangedThroughAnotherNode_isSeenByTheNextQuery() throws {
        let cluster = try SharedCluster.get()
        let followers = try cluster.followerIDs()
        let reader = try cluster.client(followers[0])
        let other = try cluster.client(followers[1])
        let table = uniqueTableName("crt")
        let created = uniqueTableName("crt")
        try other.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v TEXT)")
        try other.update("INSERT INTO \(table)(v) VALUES ('a')")
        let first = try reader.ok("/query", #"{"sql": "SELECT * FROM \#(table)", "shape": "arrays"}"#)
        #expect(first["columns"]?.arrayValue?.count == 2)

        try other.update("ALTER TABLE \(table) ADD COLUMN w INTEGER")
        let widened = try reader.ok("/query", #"{"sql": "SELECT * FROM \#(table)", "shape": "arrays"}"#)
        #expect(widened["columns"]?.arrayValue?.compactMap(\.stringValue) == ["id", "v", "w"])
        #expect(widened["types"]?.arrayValue?.compactMap(\.stringValue) == ["INTEGER", "TEXT", "INTEGER"])

        try other.update("CREATE TABLE \(created)(x TEXT)")
        try other.update("INSERT INTO \(created)(x) VALUES ('new')")
        let fresh = try reader.ok("/query", #"{"sql": "SELECT x FROM \#(created)", "shape": "arrays"}"#)
        #expect(fresh["rows"]?[0]?[0]?.stringValue == "new")

        try other.update("DROP TABLE \(table)")
        let gone = try reader.post("/query", #"{"sql": "SELECT * FROM \#(table)"}"#)
        #expect(gone.status == 400, "\(gone.bodyText)")
        #expect(gone.bodyText.contains("no such table"), "\(gone.bodyText)")
    }

    /// The read client's round trips so far, from the node's metrics.
    private static func readRoundTrips(_ client: HTTPTestClient) throws -> Int {
        let text = try client.get("/metrics").bodyText
        let name = #"sqlited_cluster_round_trip_seconds_count{client="read"} "#
        let line = text.split(separator: "\n").first { $0.hasPrefix(name) }
        return line.flatMap { Double($0.dropFirst(name.count)) }.map { Int($0) } ?? -1
    }
}
