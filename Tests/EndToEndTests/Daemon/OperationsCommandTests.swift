import Foundation
import Testing

/// `sqlited backup`, `sqlited migrate` and migrations at start, through the real binary.
@Suite struct OperationsCommandTests {
    typealias Run = CheckConfigTests.Run

    static func run(_ arguments: [String]) throws -> Run {
        try CheckConfigTests.run(arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// A migrations directory with the given files.
    static func migrations(_ files: [String: String], in directory: URL) throws -> URL {
        let folder = directory.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, sql) in files {
            try sql.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// `backup --database --to` writes a copy that opens and holds the rows; an existing destination is refused.
    @Test func backup_writesACopyAndRefusesToOverwrite() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-ops")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        let client = try server.makeClient()
        try client.update("CREATE TABLE kept(x)")
        try client.update("INSERT INTO kept VALUES (1), (2), (3)")

        // The server keeps running: the offline command opens the database read-only beside it.
        let database = directory.url.appendingPathComponent("db.sqlite").path
        let copy = directory.url.appendingPathComponent("copy.sqlite").path
        let first = try Self.run(["backup", "--database", database, "--to", copy])
        #expect(first.status == 0, "\(first.stderr)")
        // Written after the copy: it must be in the original only.
        try client.update("INSERT INTO kept VALUES (4)")
        #expect(try server.stop() == .exited(0))

        let restored = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: ["--database", copy, "--host", "127.0.0.1", "--port", "0"]
        )
        #expect(try restored.makeClient().scalarInt("SELECT count(*) FROM kept") == 3)
        #expect(try restored.stop() == .exited(0))

        let second = try Self.run(["backup", "--database", database, "--to", copy])
        #expect(second.status != 0)
    }

    /// `migrate` applies pending files in order and `--status` lists applied and pending files.
    @Test func migrate_appliesAndReportsStatus() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-ops")
        let database = directory.url.appendingPathComponent("db.sqlite").path
        let folder = try Self.migrations(
            ["001_people.sql": "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT);"],
            in: directory.url
        )

        let applied = try Self.run(["migrate", "--database", database, "--migrations", folder.path])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("applied 001_people.sql"), "\(applied.stdout)")

        try "ALTER TABLE people ADD COLUMN email TEXT;".write(
            to: folder.appendingPathComponent("002_email.sql"),
            atomically: true,
            encoding: .utf8
        )
        let status = try Self.run(["migrate", "--database", database, "--migrations", folder.path, "--status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("database at version 1, latest migration 2"), "\(status.stdout)")
        #expect(status.stdout.contains("applied  001_people.sql"), "\(status.stdout)")
        #expect(status.stdout.contains("pending  002_email.sql"), "\(status.stdout)")
    }

    /// At start, pending migrations are applied before the server answers; a failing file stops the start with
    /// its name and SQLite's message and leaves the database at the previous version.
    @Test func serve_appliesMigrationsAndStopsOnAFailingFile() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-ops")
        let folder = try Self.migrations(
            [
                "001_people.sql": "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT);",
                "002_seed.sql": "INSERT INTO people(name) VALUES ('Ann');",
            ],
            in: directory.url
        )
        let environment = ["SQLITED_MIGRATIONS_DIRECTORY": folder.path]
        let server = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--database", directory.url.appendingPathComponent("db.sqlite").path, "--host", "127.0.0.1",
                "--port", "0",
            ],
            environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        )
        let client = try server.makeClient()
        #expect(try client.scalarInt("SELECT count(*) FROM people") == 1)
        #expect(try client.scalarInt("PRAGMA user_version") == 2)
        #expect(try server.stop() == .exited(0))

        // A third file fails half-way: its first statement must be undone too.
        try "CREATE TABLE half(x); INSERT INTO nowhere VALUES (1);".write(
            to: folder.appendingPathComponent("003_broken.sql"),
            atomically: true,
            encoding: .utf8
        )
        let failed = try CheckConfigTests.run(
            [
                "--database", directory.url.appendingPathComponent("db.sqlite").path, "--host", "127.0.0.1",
                "--port", "0",
            ],
            environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        )
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("003_broken.sql"), "\(failed.stderr)")
        #expect(failed.stderr.contains("no such table: nowhere"), "\(failed.stderr)")

        try FileManager.default.removeItem(at: folder.appendingPathComponent("003_broken.sql"))
        let restarted = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--database", directory.url.appendingPathComponent("db.sqlite").path, "--host", "127.0.0.1",
                "--port", "0",
            ],
            environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        )
        let after = try restarted.makeClient()
        #expect(try after.scalarInt("PRAGMA user_version") == 2)
        #expect(try after.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'half'") == 0)
        #expect(try restarted.stop() == .exited(0))
    }
}
