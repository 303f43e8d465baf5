import ArgumentParser
import Foundation
import SQLiteEngine
import SQLiteService

/// The options every maintenance command takes.
struct MaintenanceOptions: ParsableArguments {
    @Option(name: .long, help: "The database file (must exist).")
    var database: String

    @Option(name: .customLong("busy-timeout-ms"), help: "How long to wait for a lock held by another connection.")
    var busyTimeoutMilliseconds = 5000

    func validate() throws {
        guard !database.isEmpty, FileManager.default.fileExists(atPath: database) else {
            throw ValidationError("no database at \(database)")
        }
        guard busyTimeoutMilliseconds >= 0 else {
            throw ValidationError("--busy-timeout-ms must be zero or more")
        }
    }

    /// Opens the database, runs `body` and prints its one-line answer; a lock that cannot be had within the busy
    /// timeout (a running server writing, a long read blocking a truncate checkpoint) ends with status 75
    /// (EX_TEMPFAIL: try again), any other failure with status 1.
    func run(_ name: String, _ body: (Database) throws -> String) throws {
        var configuration = Configuration()
        // Without create: a mistyped path fails instead of maintaining a new empty database.
        configuration.openOptions = [.readWrite, .noMutex]
        configuration.busyTimeout = .milliseconds(busyTimeoutMilliseconds)
        let db: Database
        do {
            db = try Database(path: database, configuration: configuration)
        } catch let error as DatabaseError {
            throw ValidationError("cannot open \(database): \(error.message)")
        }
        defer { try? db.close() }
        do {
            print(try body(db))
        } catch let error as DatabaseError {
            if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                Self.fail(
                    "\(name) could not get its lock within \(busyTimeoutMilliseconds) ms (another connection, such "
                        + "as a running sqlited, holds it): try again, or with a longer --busy-timeout-ms",
                    code: 75
                )
            }
            Self.fail("\(name) failed: \(error.message)", code: 1)
        }
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("sqlited: \(message)\n".utf8))
        Foundation.exit(code)
    }
}

/// `sqlited vacuum`: rebuilds the database file, reclaiming free pages.
struct VacuumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Rebuild the database file (VACUUM), then checkpoint so that it shrinks.",
        discussion: """
            Safe while a server runs: it waits for the write lock (--busy-timeout-ms) like any writer. \
            See docs/running.md (Maintenance).
            """
    )

    @OptionGroup var options: MaintenanceOptions

    func run() throws {
        try options.run("vacuum") { db in
            let result = try DatabaseMaintenance.vacuum(db)
            let checkpoint = result.checkpoint.map { " (checkpoint \($0.mode): \($0.checkpointedFrames) frames)" }
            return "vacuumed \(options.database): \(result.sizeBefore) → \(result.sizeAfter) bytes" + (checkpoint ?? "")
        }
    }
}

/// `sqlited checkpoint`: a WAL checkpoint.
struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Run a WAL checkpoint (passive, full, restart or truncate).",
        discussion: """
            full, restart and truncate wait up to --busy-timeout-ms for readers and writers to make way. \
            See docs/running.md (Maintenance).
            """
    )

    @OptionGroup var options: MaintenanceOptions

    @Option(name: .long, help: "passive, full, restart or truncate.")
    var mode: Mode = .passive

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case passive, full, restart, truncate

        var checkpointMode: CheckpointMode {
            switch self {
            case .passive: .passive
            case .full: .full
            case .restart: .restart
            case .truncate: .truncate
            }
        }
    }

    func run() throws {
        try options.run("checkpoint") { db in
            let result = try DatabaseMaintenance.checkpoint(db, mode: mode.checkpointMode)
            return "checkpoint \(mode.rawValue): \(result.checkpointedFrames) of \(result.walFrames) WAL frames copied"
        }
    }
}

/// `sqlited optimize`: `PRAGMA optimize`, optionally after `ANALYZE`.
struct OptimizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimize",
        abstract: "Refresh the query planner's statistics (PRAGMA optimize; ANALYZE with --analyze).",
        discussion: "See docs/running.md (Maintenance)."
    )

    @OptionGroup var options: MaintenanceOptions

    @Flag(name: .long, help: "Run a full ANALYZE first.")
    var analyze = false

    func run() throws {
        try options.run("optimize") { db in
            try DatabaseMaintenance.optimize(db, analyze: analyze)
            return analyze ? "analyzed and optimized \(options.database)" : "optimized \(options.database)"
        }
    }
}
