import Foundation
import LoopbackTestSupport
import Testing

/// `sqlited cluster list|add|remove|transfer` through the real binary, against clusters of real `sqlited`
/// processes.
@Suite struct ClusterCommandTests {
    typealias Run = CheckConfigTests.Run

    static func run(_ arguments: [String]) throws -> Run {
        try CheckConfigTests.run(["cluster"] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// The `id → (role, leader)` of `cluster list`'s lines after its header.
    static func listed(_ output: String) -> [Int: (role: String, leader: Bool)] {
        var members: [Int: (String, Bool)] = [:]
        for line in output.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 4, let id = Int(fields[0]) else { continue }
            members[id] = (fields[2], fields[3] == "yes")
        }
        return members
    }

    /// On the shared cluster (nothing is changed): `list` through a member given with `--member`, and through a
    /// configuration file's `cluster.address`, names three voters and the leader `GET /cluster` names; an unknown
    /// id, removing the leader and an address where no member answers end with status 1 and a message.
    @Test func list_andRefusals() throws {
        let cluster = try SharedCluster.get()
        let leader = try cluster.leaderID()
        let listed = try Self.run(["list", "--member", cluster.nodes[1].raftAddress])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.hasPrefix("id\taddress\trole\tleader\n"))
        let members = Self.listed(listed.stdout)
        #expect(members.keys.sorted() == [1, 2, 3])
        #expect(members.values.allSatisfy { $0.role == "voter" })
        #expect(members.filter { $0.value.leader }.map(\.key) == [leader])

        let directory = try TemporaryDirectory()
        let config = directory.path("node3.yaml")
        try """
        cluster:
          node_id: 3
          address: "\(cluster.nodes[2].raftAddress)"
          data_dir: \(directory.path("unused").path)
        """.write(to: config, atomically: true, encoding: .utf8)
        let throughConfig = try Self.run(["list", "--config", config.path])
        #expect(throughConfig.status == 0, "\(throughConfig.stderr)")
        #expect(Self.listed(throughConfig.stdout).keys.sorted() == [1, 2, 3])

        let member = ["--member", cluster.nodes[0].raftAddress]
        let unknown = try Self.run(["transfer", "--id", "9"] + member)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "sqlited: node 9 is not a member of the cluster (members: 1, 2, 3)\n")
        let removingLeader = try Self.run(["remove", "--id", "\(leader)"] + member)
        #expect(removingLeader.status == 1)
        #expect(removingLeader.stderr.contains("node \(leader) is the leader"))
        let nobody = "127.0.0.1:\(try freeLoopbackPort())"
        let unreachable = try Self.run(["list", "--member", nobody, "--timeout-ms", "300"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.hasPrefix("sqlited: no leader of the cluster answered"))
        #expect(unreachable.stderr.contains(nobody))
        let noMember = try Self.run(["list"])
        #expect(noMember.status != 0)
        #expect(noMember.stderr.contains("no member to ask"))
    }

    /// An operator's file needs only `cluster.address` and `cluster.join` (no `node_id`, no `data_dir`: the
    /// command reads those two keys, issue #23); a malformed address there is a configuration error, status 78,
    /// naming the key and the file.
    @Test func configuration_onlyAddressAndJoinAreRead() throws {
        let cluster = try SharedCluster.get()
        let directory = try TemporaryDirectory()
        let config = directory.path("operator.yaml")
        try """
        cluster:
          address: "\(cluster.nodes[2].raftAddress)"
          join: ["\(cluster.nodes[0].raftAddress)"]
        """.write(to: config, atomically: true, encoding: .utf8)
        let listed = try Self.run(["list", "--config", config.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(Self.listed(listed.stdout).keys.sorted() == [1, 2, 3])

        let bad = directory.path("bad.yaml")
        try "cluster:\n  join: [\"localhost:9001\"]\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = try Self.run(["list", "--config", bad.path])
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(
            refused.stderr
                == "sqlited: configuration error: file \(bad.path): key 'cluster.join': \"localhost:9001\" is not "
                + "\"<IPv4>:<port>\"\n"
        )
    }

    /// A cluster node's start-up line names the node and its data directory, not the unused local database file.
    @Test func startupLine_namesTheNodeNotALocalDatabase() throws {
        let cluster = try SharedCluster.get()
        let summary = try #require(cluster.standardError(1).first { $0.contains("sqlited started") })
        #expect(summary.contains("cluster_node=1"), "\(summary)")
        #expect(summary.contains("cluster_address=\(cluster.nodes[0].raftAddress)"), "\(summary)")
        #expect(summary.contains("cluster_data_dir="), "\(summary)")
        #expect(!summary.contains("database="), "\(summary)")
    }

    /// Addresses and ids the configuration would refuse are refused before any member is asked (status 64, the
    /// usage error): a node that could never start with them would stay in the Raft configuration once added.
    @Test(arguments: [
        (["add", "--id", "4", "--address", "node4:9004"], "--address node4:9004: expected <IPv4>:<port>"),
        (["add", "--id", "4", "--address", "127.0.0.1:0"], "--address 127.0.0.1:0: expected <IPv4>:<port>"),
        (["add", "--id", "0", "--address", "127.0.0.1:9004"], "--id must be from 1 to 2147483647"),
        (["add", "--id", "2147483648", "--address", "127.0.0.1:9004"], "--id must be from 1 to 2147483647"),
        (["list", "--member", "localhost:9001"], "--member localhost:9001: expected <IPv4>:<port>"),
    ])
    func malformedAddressOrID_isAUsageError(_ arguments: [String], _ message: String) throws {
        let run = try Self.run(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// On a cluster of the test's own: a fourth `sqlited` started without `--cluster-join` is added as a voter
    /// (`add`), leads after `transfer` and serves a write as the leader, then leadership goes back and it is
    /// removed (`remove`); `GET /cluster` of the other nodes follows each step.
    @Test func add_transfer_remove() throws {
        let cluster = try SharedCluster()
        let directory = try TemporaryDirectory(prefix: "sqlited-e2eclusteradd")
        let raftAddress = "127.0.0.1:\(try freeLoopbackPort())"
        let fourth = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--host", "127.0.0.1", "--port", "0", "--database", directory.path("unused.sqlite").path,
                "--cluster-node-id", "4", "--cluster-address", raftAddress,
                "--cluster-data-dir", directory.path("node4").path,
            ],
            environment: ["SQLITED_CLUSTER_NETWORK_LATENCY_MS": "20"],
            startupTimeoutSeconds: 60
        )
        defer { _ = fourth.kill() }
        let member = ["--member", cluster.nodes[1].raftAddress]

        let added = try Self.run(["add", "--id", "4", "--address", raftAddress] + member)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added node 4 at \(raftAddress) as a voter\n")
        let again = try Self.run(["add", "--id", "4", "--address", raftAddress] + member)
        #expect(again.stdout == "node 4 is a voter already\n")
        #expect(Self.listed(try Self.run(["list"] + member).stdout)[4]?.role == "voter")

        let transferred = try Self.run(["transfer", "--id", "4"] + member)
        #expect(transferred.status == 0, "\(transferred.stderr)")
        #expect(try cluster.leaderID(asSeenBy: 2) == 4)
        let client = try HTTPTestClient(baseURL: fourth.baseURL, timeoutSeconds: 10)
        let table = uniqueTableName("cadd")
        try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(v INTEGER)"}"#)
        let count = try cluster.client(3).ok("/query", #"{"sql": "SELECT count(*) AS c FROM \#(table)"}"#)
        #expect(count["rows"]?[0]?["c"]?.int64Value == 0)

        #expect(try Self.run(["transfer", "--id", "1"] + member).status == 0)
        let removed = try Self.run(["remove", "--id", "4"] + member)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed node 4\n")
        let status = try cluster.client(2).get("/cluster").json()
        #expect(status["nodes"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [1, 2, 3])
        #expect(status["leader"]?["id"]?.int64Value == 1)
    }
}
