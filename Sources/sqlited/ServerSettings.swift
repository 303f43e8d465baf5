import Logging

/// Everything the runner needs to start, gathered from the command line.
struct ServerSettings: Sendable {
    var databasePath: String
    var host: String
    var port: UInt16
    var unixSocketPath: String?
    var readerCount: Int
    var logLevel: Logger.Level
    var version: String
}
