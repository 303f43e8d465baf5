import Foundation
import Testing

/// The `cluster:` section through the real binary: the three layers, `check-config --print`, and validation.
@Suite struct ClusterConfigurationTests {
    /// The file, `SQLITED_CLUSTER_*` and `--cluster-*` flags set the section, in the usual order, and
    /// `check-config --print` shows each key with its source.
    @Test func clusterKeys_fromFileEnvironmentAndFlags() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-config")
        let file = directory.path("sqlited.yaml")
        try """
        cluster:
          node_id: 2
          address: "127.0.0.1:9002"
          join: ["127.0.0.1:9001"]
          data_dir: "/var/lib/sqlited/raft"
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try CheckConfigTests.run(
            ["check-config", "--config", file.path, "--print", "--cluster-address", "127.0.0.1:9012"],
            environment: ["SQLITED_CLUSTER_NETWORK_LATENCY_MS": "20"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let values = CheckConfigTests.printed(result.stdout)
        #expect(values["cluster.node_id"]?.value == "2")
        #expect(values["cluster.node_id"]?.source == "file \(file.path)")
        #expect(values["cluster.address"]?.value == "127.0.0.1:9012")
        #expect(values["cluster.address"]?.source == "command-line flag --cluster-address")
        #expect(values["cluster.join"]?.value == "[127.0.0.1:9001]")
        #expect(values["cluster.data_dir"]?.value == "/var/lib/sqlited/raft")
        #expect(values["cluster.network_latency_ms"]?.value == "20")
        #expect(
            values["cluster.network_latency_ms"]?.source == "environment variable SQLITED_CLUSTER_NETWORK_LATENCY_MS"
        )
    }

    /// A cluster section that cannot work stops with exit 78 and a message naming the key and its source.
    @Test(arguments: [
        (["--cluster-node-id", "2", "--cluster-data-dir", "/tmp/x"], "key 'cluster.address': is required"),
        (
            ["--cluster-node-id", "2", "--cluster-address", "localhost:9002", "--cluster-data-dir", "/tmp/x"],
            "key 'cluster.address': \"localhost:9002\" is not \"<IPv4>:<port>\""
        ),
        (
            ["--cluster-node-id", "2", "--cluster-address", "127.0.0.1:9002"],
            "key 'cluster.data_dir': is required"
        ),
        (
            [
                "--cluster-node-id", "1", "--cluster-address", "127.0.0.1:9001", "--cluster-data-dir", "/tmp/x",
                "--cluster-join", "127.0.0.1:9002",
            ],
            "key 'cluster.join': node 1 bootstraps the cluster"
        ),
        (
            [
                "--cluster-node-id", "2", "--cluster-address", "127.0.0.1:9002", "--cluster-data-dir", "/tmp/x",
                "--cluster-join", "127.0.0.1",
            ],
            "key 'cluster.join': \"127.0.0.1\" is not \"<IPv4>:<port>\""
        ),
        (["--cluster-address", "127.0.0.1:9002"], "key 'cluster.address': is set but cluster.node_id is not"),
    ])
    func invalidClusterSection_stopsNamingKey(arguments: [String], message: String) throws {
        let result = try CheckConfigTests.run(["check-config"] + arguments)
        #expect(result.status == 78)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        if message.hasSuffix("is required") {
            // A key no layer sets is named as such, not as coming from "default" (issue #23).
            #expect(result.stderr.contains("(not set in the file, the environment or the flags)"), "\(result.stderr)")
            #expect(!result.stderr.contains("default:"), "\(result.stderr)")
        }
    }
}
