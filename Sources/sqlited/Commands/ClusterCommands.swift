import ArgumentParser
import DqliteCluster
import Foundation

/// `sqlited cluster`: an operator's membership requests to a running dqlite cluster (see ``ClusterAdministrator``).
struct ClusterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "List, add or remove the members of a cluster, or move its leadership.",
        discussion: """
            Each subcommand finds the leader through the members given with --member, else through cluster.address \
            and cluster.join of the configuration (--config, $SQLITED_CONFIG, SQLITED_CLUSTER_* variables; only \
            those two keys are read). Exit status 1 when the request is refused (an unknown id, the leader removed) \
            or not done in time, 64 for a malformed flag, 78 for a configuration that names no valid member. \
            See docs/cluster.md.
            """,
        subcommands: [
            ClusterListCommand.self, ClusterAddCommand.self, ClusterRemoveCommand.self, ClusterTransferCommand.self,
        ]
    )
}

/// The options every `sqlited cluster` subcommand takes: where to find the cluster, and how long to try.
struct ClusterCommandOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "A member's Raft address, <IPv4>:<port>; repeat for several (default: the configuration's)."
    )
    var member: [String] = []

    @Option(name: .long, help: "A YAML configuration file whose cluster.address and cluster.join name members.")
    var config: String?

    @Option(name: .customLong("timeout-ms"), help: "How long to look for the leader and retry (default 10000).")
    var timeoutMilliseconds = 10_000

    func validate() throws {
        guard timeoutMilliseconds > 0 else {
            throw ValidationError("--timeout-ms must be positive")
        }
        for address in member where !DaemonConfiguration.isNodeAddress(address) {
            throw ValidationError("--member \(address): expected <IPv4>:<port>")
        }
    }

    /// The administrator for the members given, else those of the configuration.
    func administrator() throws -> ClusterAdministrator {
        var members = member
        if members.isEmpty {
            let options = try ConfigurationOptions.parse(config.map { ["--config", $0] } ?? [])
            do {
                members = try Self.members(from: try options.layers())
            } catch {
                FileHandle.standardError.write(Data("sqlited: configuration error: \(error)\n".utf8))
                throw ExitCode(ServeCommand.configurationErrorExitCode)
            }
        }
        guard !members.isEmpty else {
            throw ValidationError("no member to ask: give --member <ip:port>, or a configuration with cluster.address")
        }
        return ClusterAdministrator(members: members, timeout: .milliseconds(timeoutMilliseconds))
    }

    /// `cluster.address` and `cluster.join` of a configuration, each checked as the node checks them; nothing else
    /// of the configuration is read, so an operator's file needs no `node_id` or `data_dir`.
    static func members(from values: LayeredConfiguration) throws(ConfigurationError) -> [String] {
        let address = try values.string("cluster.address", default: "")
        let join = try values.stringArray("cluster.join", default: [])
        for (key, candidates) in [("cluster.address", address.isEmpty ? [] : [address]), ("cluster.join", join)] {
            if let bad = candidates.first(where: { !DaemonConfiguration.isNodeAddress($0) }) {
                throw ConfigurationError(
                    key: key,
                    source: values.source(of: key),
                    message: "\"\(bad)\" is not \"<IPv4>:<port>\""
                )
            }
        }
        return (address.isEmpty ? [] : [address]) + join
    }

    /// Runs `body`; a ``ClusterError`` is printed on standard error and ends the process with status 1.
    func run(_ body: (ClusterAdministrator) throws(ClusterError) -> String) throws {
        let administrator = try administrator()
        do {
            print(try body(administrator))
        } catch {
            FileHandle.standardError.write(Data("sqlited: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// `sqlited cluster list`: the members, their roles and the leader.
struct ClusterListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the members of the cluster with their roles, the leader marked.",
        discussion: "See docs/cluster.md (Managing the members)."
    )

    @OptionGroup var options: ClusterCommandOptions

    func run() throws {
        try options.run { (administrator) throws(ClusterError) in
            let info = try administrator.list()
            var lines = ["id\taddress\trole\tleader"]
            for node in info.nodes {
                let role =
                    switch node.role {
                    case .voter: "voter"
                    case .standBy: "standby"
                    case .spare: "spare"
                    }
                lines.append("\(node.id)\t\(node.address)\t\(role)\t\(node.id == info.leaderID ? "yes" : "no")")
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// `sqlited cluster add`: ADD, then ASSIGN voter.
struct ClusterAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a running node to the cluster and make it a voter.",
        discussion: """
            Start the node first with its --cluster-node-id and --cluster-address and no --cluster-join (it waits \
            to be added). A node listed already is only made a voter. See docs/cluster.md (Managing the members).
            """
    )

    @OptionGroup var options: ClusterCommandOptions

    @Option(name: .long, help: "The node's id (positive, unused in the cluster).")
    var id: UInt64

    @Option(name: .long, help: "The node's Raft address, <IPv4>:<port>.")
    var address: String

    func validate() throws {
        // As the configuration checks cluster.node_id and cluster.address: a node that could never start with
        // these would stay in the Raft configuration, unreachable, once ADD is committed.
        guard (1...UInt64(Int32.max)).contains(id) else {
            throw ValidationError("--id must be from 1 to \(Int32.max)")
        }
        guard DaemonConfiguration.isNodeAddress(address) else {
            throw ValidationError("--address \(address): expected <IPv4>:<port>")
        }
    }

    func run() throws {
        try options.run { (administrator) throws(ClusterError) in
            switch try administrator.add(id: id, address: address) {
            case .added: "added node \(id) at \(address) as a voter"
            case .promoted: "node \(id) was a member already; it is a voter now"
            case .alreadyVoter: "node \(id) is a voter already"
            }
        }
    }
}

/// `sqlited cluster remove`: REMOVE.
struct ClusterRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a node from the cluster (not the leader: transfer its leadership first).",
        discussion: """
            The node keeps running until it is stopped; to come back it must start with an emptied data directory \
            and join again. See docs/cluster.md (Managing the members).
            """
    )

    @OptionGroup var options: ClusterCommandOptions

    @Option(name: .long, help: "The id of the node to remove.")
    var id: UInt64

    func run() throws {
        try options.run { (administrator) throws(ClusterError) in
            try administrator.remove(id: id)
            return "removed node \(id)"
        }
    }
}

/// `sqlited cluster transfer`: TRANSFER.
struct ClusterTransferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Hand the cluster's leadership to a voter.",
        discussion: "See docs/cluster.md (Managing the members)."
    )

    @OptionGroup var options: ClusterCommandOptions

    @Option(name: .long, help: "The id of the voter to lead.")
    var id: UInt64

    func run() throws {
        try options.run { (administrator) throws(ClusterError) in
            try administrator.transfer(to: id)
            return "node \(id) leads the cluster"
        }
    }
}
