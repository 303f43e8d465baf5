/// A reason the daemon cannot start, other than a configuration value (``ConfigurationError``).
struct StartupError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
