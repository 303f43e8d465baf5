import ArgumentParser
import Configuration
import Foundation

/// The command-line flags shared by `serve` and `check-config`: the configuration file and the flags that
/// override its keys (the flags of the first versions keep working unchanged).
struct ConfigurationOptions: ParsableArguments {
    @Option(name: .long, help: "A YAML configuration file (default: $SQLITED_CONFIG, else none).")
    var config: String?

    @Option(name: .long, help: "The database file, created when missing (database.path; default data/sqlited.sqlite).")
    var database: String?

    @Option(
        name: .long,
        help: "The address to listen on: IPv4 or IPv6 literal, or localhost (listen.host; default 127.0.0.1)."
    )
    var host: String?

    @Option(name: .long, help: "The TCP port to listen on, 0 picks a free port (listen.port; default 8080).")
    var port: Int?

    @Option(name: .long, help: "Also listen on this Unix domain socket path (listen.unix_socket).")
    var unixSocket: String?

    @Option(name: .long, help: "Most read-only connections serving reads concurrently (database.readers; default 4).")
    var readers: Int?

    @Option(
        name: .long,
        help: "Log level: trace, debug, info, notice, warning, error, critical (log.level; default info)."
    )
    var logLevel: String?

    @Option(
        name: .long,
        help: "This node's id in a dqlite cluster; 1 bootstraps it (cluster.node_id; default 0: no cluster)."
    )
    var clusterNodeId: Int?

    @Option(name: .long, help: "The Raft address this node binds, <IPv4>:<port> (cluster.address).")
    var clusterAddress: String?

    @Option(name: .long, help: "An existing member's address to join through; repeat for several (cluster.join).")
    var clusterJoin: [String] = []

    @Option(name: .long, help: "The node's Raft data directory, created when missing (cluster.data_dir).")
    var clusterDataDir: String?

    /// The configuration file to read: `--config`, else `$SQLITED_CONFIG`, else none.
    func configFilePath(environment: [String: String]) -> String? {
        if let config { return config }
        if let path = environment[LayeredConfiguration.configFileVariable], !path.isEmpty { return path }
        return nil
    }

    /// Loads and validates the configuration: flags > `SQLITED_*` environment > file > defaults.
    func load(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> (DaemonConfiguration, LayeredConfiguration) {
        let values = try layers(environment: environment)
        return (try DaemonConfiguration.load(from: values), values)
    }

    /// The configuration's layers, read but not validated as a whole (for a command that needs a few keys only).
    func layers(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> LayeredConfiguration {
        var flags: [String: (flag: String, value: ConfigContent)] = [:]
        if let database { flags["database.path"] = ("--database", .string(database)) }
        if let host { flags["listen.host"] = ("--host", .string(host)) }
        if let port { flags["listen.port"] = ("--port", .int(port)) }
        if let unixSocket { flags["listen.unix_socket"] = ("--unix-socket", .string(unixSocket)) }
        if let readers { flags["database.readers"] = ("--readers", .int(readers)) }
        if let logLevel { flags["log.level"] = ("--log-level", .string(logLevel)) }
        if let clusterNodeId { flags["cluster.node_id"] = ("--cluster-node-id", .int(clusterNodeId)) }
        if let clusterAddress { flags["cluster.address"] = ("--cluster-address", .string(clusterAddress)) }
        if !clusterJoin.isEmpty { flags["cluster.join"] = ("--cluster-join", .stringArray(clusterJoin)) }
        if let clusterDataDir { flags["cluster.data_dir"] = ("--cluster-data-dir", .string(clusterDataDir)) }
        return try LayeredConfiguration(
            flags: flags,
            environment: environment,
            filePath: configFilePath(environment: environment)
        )
    }
}
