import ArgumentParser
import Foundation
import Logging
import SQLiteEngine
import SQLiteService

/// `sqlited migrate`: applies a migrations directory to a database, or shows where it stands.
///
/// The database is opened as the server opens it (WAL, the service's SQL policy on the writer), so a migration that
/// passes here also passes at the server's start.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the pending migrations of a directory of numbered .sql files.",
        discussion: """
            Files are named NNN_name.sql or NNN-name.sql and numbered from 1 without gaps. Each runs in its own \
            transaction; PRAGMA user_version records the last one applied. A failing file is rolled back and \
            stops the run, naming the file and SQLite's message. See docs/running.md (Migrations).
            """
    )

    @Option(name: .long, help: "The database file (created when missing, unless --status).")
    var database: String

    @Option(name: .long, help: "The directory of numbered .sql files.")
    var migrations: String

    @Flag(name: .long, help: "List applied and pending files without applying anything.")
    var status = false

    func validate() throws {
        guard !database.isEmpty, !migrations.isEmpty else {
            throw ValidationError("--database and --migrations must name a file and a directory")
        }
        if status, !FileManager.default.fileExists(atPath: database) {
            throw ValidationError("no database at \(database)")
        }
    }

    func run() throws {
        let directory: Migrations
        do {
            directory = try Migrations(directory: migrations)
        } catch let error as MigrationError {
            Self.fail(error.description)
        }
        let limits = ServiceLimits()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            SQLiteService.prepareConnection(db, role: db.isReadOnly ? .reader : .writer, limits: limits)
        }
        let pool = try DatabasePool(path: database, configuration: .init(configuration: configuration))
        defer { try? pool.close() }
        do {
            if status {
                print(Self.describe(try directory.status(of: pool)), terminator: "")
                return
            }
            // The command prints its own lines; the library's log lines would repeat them.
            let logger = Logger(label: "sqlited.migrate") { _ in SwiftLogNoOpLogHandler() }
            let applied = try directory.apply(to: pool, logger: logger)
            for name in applied {
                print("applied \(name)")
            }
            let status = try directory.status(of: pool)
            print("database at version \(status.currentVersion) (\(applied.count) applied now)")
        } catch let error as MigrationError {
            Self.fail(error.description)
        }
    }

    /// The `--status` listing: the version line, then one line per file.
    static func describe(_ status: MigrationStatus) -> String {
        var text = "database at version \(status.currentVersion), latest migration \(status.latestVersion)\n"
        if status.isAhead {
            text += "the database is newer than every migration file\n"
        }
        for name in status.applied {
            text += "applied  \(name)\n"
        }
        for name in status.pending {
            text += "pending  \(name)\n"
        }
        return text
    }

    /// Reports a failure on standard error and exits with status 1.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("sqlited: \(message)\n".utf8))
        Self.exit(withError: ExitCode.failure)
    }
}
