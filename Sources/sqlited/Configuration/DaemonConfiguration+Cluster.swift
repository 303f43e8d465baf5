/// The `cluster:` section: this process embeds one dqlite node and serves the API from the cluster (issue #15).
struct ClusterSettings: Sendable, Equatable {
    /// The node's Raft id (1 bootstraps a new cluster on its first start).
    var nodeID: UInt64
    /// The Raft and wire address this node binds, `"<IPv4>:<port>"`.
    var address: String
    /// Addresses of existing members, asked to add this node on its first start.
    var join: [String]
    /// The node's Raft log and snapshots (created when missing).
    var dataDirectory: String
    /// dqlite's network latency; nil keeps dqlite's default (election timeout 3 s).
    var networkLatencyMilliseconds: UInt32?
}

extension DaemonConfiguration {
    /// `cluster.node_id` (0, the default: no cluster, the local database), `cluster.address`, `cluster.join`,
    /// `cluster.data_dir`, `cluster.network_latency_ms` (0: dqlite's default).
    static func loadCluster(from values: LayeredConfiguration) throws(ConfigurationError) -> ClusterSettings? {
        let nodeID = try values.int("cluster.node_id", default: 0, range: 0...Int(Int32.max))
        let address = try values.string("cluster.address", default: "")
        let join = try values.stringArray("cluster.join", default: [])
        let dataDirectory = try values.string("cluster.data_dir", default: "")
        let latency = try values.int("cluster.network_latency_ms", default: 0, range: 0...60_000)
        guard nodeID > 0 else {
            for (key, isSet) in [
                ("cluster.address", !address.isEmpty), ("cluster.join", !join.isEmpty),
                ("cluster.data_dir", !dataDirectory.isEmpty), ("cluster.network_latency_ms", latency != 0),
            ] where isSet {
                throw ConfigurationError(
                    key: key,
                    source: values.source(of: key),
                    message: "is set but cluster.node_id is not: set cluster.node_id (1 bootstraps a new cluster)"
                )
            }
            return nil
        }
        guard Self.isNodeAddress(address) else {
            throw ConfigurationError(
                key: "cluster.address",
                source: values.source(of: "cluster.address"),
                message: address.isEmpty
                    ? "is required in cluster mode (\"<IPv4>:<port>\", the Raft address this node binds)"
                    : "\"\(address)\" is not \"<IPv4>:<port>\" (dqlite needs an IP address, not a host name)"
            )
        }
        if let bad = join.first(where: { !Self.isNodeAddress($0) }) {
            throw ConfigurationError(
                key: "cluster.join",
                source: values.source(of: "cluster.join"),
                message: "\"\(bad)\" is not \"<IPv4>:<port>\""
            )
        }
        if nodeID == 1, !join.isEmpty {
            throw ConfigurationError(
                key: "cluster.join",
                source: values.source(of: "cluster.join"),
                message: "node 1 bootstraps the cluster and joins nobody: give the joining node another id"
            )
        }
        guard !dataDirectory.isEmpty else {
            throw ConfigurationError(
                key: "cluster.data_dir",
                source: values.source(of: "cluster.data_dir"),
                message: "is required in cluster mode (the node's Raft log and snapshots)"
            )
        }
        return ClusterSettings(
            nodeID: UInt64(nodeID),
            address: address,
            join: join,
            dataDirectory: dataDirectory,
            networkLatencyMilliseconds: latency == 0 ? nil : UInt32(latency)
        )
    }

    /// Whether `text` is `"<IPv4>:<port>"` with a port from 1 to 65535.
    static func isNodeAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Int(parts[1]), (1...65_535).contains(port) else { return false }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII)
                    && Int(octet).map { $0 <= 255 } == true
            }
    }
}
