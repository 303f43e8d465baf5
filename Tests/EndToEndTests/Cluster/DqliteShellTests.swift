import Foundation
import Testing

/// A client of the cluster nobody here wrote: Debian's `go-dqlite` shell (`/usr/bin/dqlite`, go-dqlite 1.11), which
/// speaks dqlite's wire protocol to the nodes' Raft addresses. `.ci/run` installs it; on a developer's machine
/// without it the suite is skipped with a message, in CI (`CI` set) it runs and fails.
@Suite(.enabled(if: DqliteShell.available, "the dqlite shell is not installed (apt-get install go-dqlite)"))
struct DqliteShellTests {
    /// Rows written through one node's `POST /update` are read back by the shell through another node, in the
    /// database `sqlited`, with the same values (tabular output: one `|`-separated line per row).
    @Test func writesThroughHTTP_areReadByTheDqliteShell() throws {
        let shell = try #require(DqliteShell.tool, "the dqlite shell is required in CI (.ci/run installs go-dqlite)")
        let cluster = try SharedCluster.get()
        let followers = try cluster.followerIDs()
        let writer = try cluster.client(followers[0])
        let table = uniqueTableName("ds")
        try writer.ok(
            "/update",
            #"{"sql": "CREATE TABLE \#(table)(id INTEGER PRIMARY KEY, t TEXT, r REAL, n INTEGER)"}"#
        )
        try writer.ok(
            "/update",
            #"{"sql": "INSERT INTO \#(table)(t, r, n) VALUES (?, ?, ?)", "params_batch": "#
                + #"[["héllo", 2.5, 9223372036854775807], ["b", -1.25, -42]]}"#
        )
        let result = try shell.run(
            [
                "-s", cluster.nodes[followers[1] - 1].raftAddress, "sqlited",
                "SELECT id, t, r, n FROM \(table) ORDER BY id",
            ],
            timeoutSeconds: 30
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1|héllo|2.5|9223372036854775807\n2|b|-1.25|-42\n")
    }

    /// `.cluster` through any node lists the three nodes, their Raft addresses and the voter role.
    @Test func clusterCommand_listsTheThreeNodes() throws {
        let shell = try #require(DqliteShell.tool, "the dqlite shell is required in CI (.ci/run installs go-dqlite)")
        let cluster = try SharedCluster.get()
        let result = try shell.run(["-s", cluster.nodes[2].raftAddress, "sqlited", ".cluster"], timeoutSeconds: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init).sorted()
        #expect(lines == cluster.nodes.map { "\($0.id)|\($0.raftAddress)|voter" })
    }
}

/// The `dqlite` shell on `PATH`, if installed.
enum DqliteShell {
    static let tool = ExternalTool("dqlite")
    /// Whether the suite runs: the shell is installed, or this is CI (where its absence fails the tests).
    static var available: Bool { tool != nil || HTTP2Tools.inCI }
}
