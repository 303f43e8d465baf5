import ArgumentParser
import Foundation
import SQLiteEngine

/// `sqlited backup`: copies a database into a new file with SQLite's online backup API.
///
/// It opens the database read-only, so it may run while a server uses the same file (in WAL mode the server keeps
/// reading and writing); the copy is one consistent snapshot.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a database into a new file with SQLite's online backup API.",
        discussion: """
            The copy is a consistent snapshot, safe to take while a server uses the database. \
            The destination must not exist; it appears only once complete. See docs/running.md (Backups).
            """
    )

    @Option(name: .long, help: "The database file to copy (must exist).")
    var database: String

    @Option(name: .customLong("to"), help: "The backup file to create (must not exist).")
    var destination: String

    func validate() throws {
        guard !database.isEmpty, !destination.isEmpty else {
            throw ValidationError("--database and --to must name files")
        }
        guard FileManager.default.fileExists(atPath: database) else {
            throw ValidationError("no database at \(database)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ValidationError("\(destination) already exists; choose a new file")
        }
    }

    func run() throws {
        var configuration = Configuration()
        // Read-only and without create: a mistyped path fails instead of backing up a new empty database.
        configuration.openOptions = [.readOnly, .noMutex]
        let database: Database
        do {
            database = try Database(path: self.database, configuration: configuration)
        } catch let error as DatabaseError {
            throw ValidationError("cannot open \(self.database): \(error.message)")
        }
        defer { try? database.close() }
        do {
            try database.backup(to: destination)
        } catch let error as DatabaseError {
            Self.fail("backup failed: \(error.message)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        print("backed up \(self.database) to \(destination) (\(size) bytes)")
    }

    /// Reports a failure on standard error and exits with status 1.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("sqlited: \(message)\n".utf8))
        Self.exit(withError: ExitCode.failure)
    }
}
