import ArgumentParser
import Foundation
import Logging
import SQLiteEngine

/// `sqlited`: serves one SQLite database over HTTP/JSON.
@main
struct SqlitedCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "sqlited",
        abstract: "Serve an SQLite database over HTTP/JSON.",
        discussion: """
            With no options, sqlited serves data/sqlited.sqlite (created on first run, with its folder) \
            on http://127.0.0.1:8080. The API is described in the README.
            """,
        version: "sqlited \(version) (SQLite \(sqliteLibraryVersion))"
    )

    @Option(name: .long, help: "The database file (created when missing).")
    var database: String = "data/sqlited.sqlite"

    @Option(name: .long, help: "The address to listen on (IPv4 or IPv6 literal, or localhost).")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "The TCP port to listen on (0 picks a free port).")
    var port: UInt16 = 8080

    @Option(name: .long, help: "Also listen on this Unix domain socket path.")
    var unixSocket: String?

    @Option(name: .long, help: "Most read-only connections serving reads concurrently.")
    var readers: Int = 4

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard readers >= 1, readers <= 64 else {
            throw ValidationError("--readers must be between 1 and 64")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard !database.isEmpty else {
            throw ValidationError("--database must name a file")
        }
    }

    func run() throws {
        let settings = ServerSettings(
            databasePath: database, host: host, port: port, unixSocketPath: unixSocket,
            readerCount: readers, logLevel: Logger.Level(rawValue: logLevel) ?? .info, version: Self.version)
        try ServerRunner(settings: settings).runUntilStopped()
    }
}
