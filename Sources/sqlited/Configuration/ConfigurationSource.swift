/// Where a configuration value came from, for messages that name the key and its origin.
enum ConfigurationSource: Sendable, Hashable, CustomStringConvertible {
    /// A command-line flag such as `--port`.
    case flag(String)
    /// An environment variable such as `SQLITED_LISTEN_PORT`.
    case environment(String)
    /// The configuration file at this path.
    case file(String)
    /// The built-in default.
    case defaultValue

    var description: String {
        switch self {
        case .flag(let name): "command-line flag \(name)"
        case .environment(let name): "environment variable \(name)"
        case .file(let path): "file \(path)"
        case .defaultValue: "default"
        }
    }
}
