import ArgumentParser
import Foundation
import SQLiteEngine

/// `sqlited`: serves one SQLite database over HTTP/JSON.
///
/// `serve` is the default subcommand, so `sqlited --port 0` serves as it always did.
@main
struct SqlitedCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "sqlited",
        abstract: "Serve an SQLite database over HTTP/JSON.",
        discussion: """
            With no subcommand, runs `serve`: data/sqlited.sqlite (created on first run, with its folder) on \
            http://127.0.0.1:8080. The API is described in docs/api.md, the configuration in docs/configuration.md, \
            running it as a service in docs/running.md; README.md lists every page.
            """,
        version: "sqlited \(version) (SQLite \(sqliteLibraryVersion))",
        subcommands: [
            ServeCommand.self, CheckConfigCommand.self, BackupCommand.self, MigrateCommand.self, HashTokenCommand.self,
            VacuumCommand.self, CheckpointCommand.self, OptimizeCommand.self, ClusterCommand.self, OpenAPICommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// Applies the process-wide SQLite settings (before any database is opened), then runs the command.
    static func main() {
        if !LibrarySettings.turnOffMemoryStatistics() {
            // Only if something opened a database before main: the daemon works, each allocation just takes a lock.
            FileHandle.standardError.write(Data("sqlited: SQLite's memory statistics could not be turned off\n".utf8))
        }
        main(nil)
    }
}
