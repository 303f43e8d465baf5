/// Why a configuration cannot be used; the message names the key and where its value came from.
struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted key (`listen.port`), or `nil` for a problem with a whole file.
    let key: String?
    /// Where the offending value or key came from.
    let source: ConfigurationSource
    /// What is wrong, without the value itself (it may be a token).
    let message: String

    var description: String {
        switch (key, source) {
        case (let key?, .defaultValue):
            // A required key that no layer sets has no source to name.
            "key '\(key)': \(message) (not set in the file, the environment or the flags)"
        case (let key?, _):
            "\(source): key '\(key)': \(message)"
        case (nil, _):
            "\(source): \(message)"
        }
    }
}
