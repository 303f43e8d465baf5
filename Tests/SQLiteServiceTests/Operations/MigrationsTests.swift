import Foundation
import Logging
import SQLiteEngine
import Testing

@testable import SQLiteService

/// Migrations: numbered .sql files applied in order, each in its own transaction, tracked by `user_version`.
@Suite struct MigrationsTests {
    let fixture: ServiceFixture
    let migrationsPath: String
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    init() throws {
        fixture = try ServiceFixture(withMetrics: false)
        migrationsPath = fixture.path("migrations")
        try FileManager.default.createDirectory(atPath: migrationsPath, withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ sql: String) throws {
        try Data(sql.utf8).write(to: URL(fileURLWithPath: migrationsPath).appendingPathComponent(name))
    }

    private func userVersion() throws -> Int64? {
        try fixture.pool.read { db in try db.int64(sql: "PRAGMA user_version") }
    }

    private func tableNames() throws -> [String] {
        try fixture.pool.read { db in
            try db.fetchAll(sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                .compactMap { row -> String? in
                    if case .text(let name) = row[0] { return name }
                    return nil
                }
        }
    }

    private func migrationError(_ body: () throws -> Void) -> MigrationError? {
        do {
            try body()
            Issue.record("expected a MigrationError, nothing was thrown")
        } catch let error as MigrationError {
            return error
        } catch {
            Issue.record("expected a MigrationError, got \(error)")
        }
        return nil
    }

    /// Checks that files are ordered by number (not by name), both separators and leading zeros are accepted, and
    /// other or hidden files are ignored.
    @Test func init_listsNumberedFilesInOrder() throws {
        try write("10-ten.sql", "SELECT 1;")
        try write("2_two.sql", "SELECT 1;")
        try write("001_one.sql", "SELECT 1;")
        for version in 3...9 { try write("\(version)_v.sql", "SELECT 1;") }
        try write("README.md", "not a migration")
        try write(".001_hidden.sql", "SELECT 1;")

        let migrations = try Migrations(directory: migrationsPath)

        #expect(migrations.files.map(\.version) == Array(1...10))
        #expect(migrations.files.first?.name == "001_one.sql")
        #expect(migrations.files.last?.name == "10-ten.sql")
        #expect(migrations.latestVersion == 10)
    }

    /// Checks that a missing number is refused, naming the file after the gap.
    @Test func init_rejectsGap() throws {
        try write("001_a.sql", "SELECT 1;")
        try write("003_c.sql", "SELECT 1;")
        let error = migrationError { _ = try Migrations(directory: migrationsPath) }
        #expect(error?.file == "003_c.sql")
        #expect(error?.message.contains("2") == true)
    }

    /// Checks that two files with one number are refused, naming both.
    @Test func init_rejectsDuplicateNumber() throws {
        try write("001_a.sql", "SELECT 1;")
        try write("1-b.sql", "SELECT 1;")
        let error = migrationError { _ = try Migrations(directory: migrationsPath) }
        #expect(error?.file == "1-b.sql" || error?.file == "001_a.sql")
        #expect(error?.message.contains(error?.file == "1-b.sql" ? "001_a.sql" : "1-b.sql") == true)
    }

    /// Checks that numbering must start at 1 and that a .sql name without a number and separator is refused.
    @Test(arguments: ["002_b.sql", "000_zero.sql", "create.sql", "001.sql", "001create.sql"])
    func init_rejectsBadNames(name: String) throws {
        try write(name, "SELECT 1;")
        let error = migrationError { _ = try Migrations(directory: migrationsPath) }
        #expect(error?.file == name)
    }

    /// Checks that a missing directory is reported.
    @Test func init_rejectsMissingDirectory() {
        let error = migrationError { _ = try Migrations(directory: fixture.path("nowhere")) }
        #expect(error?.file == nil)
        #expect(error?.message.contains("cannot read") == true)
    }

    /// Checks that pending files run in order, set user_version to the last one, and that a second run applies
    /// nothing.
    @Test func apply_runsPendingFilesInOrder() throws {
        try write("001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);")
        try write(
            "002_posts.sql",
            """
            -- posts refer to users
            CREATE TABLE posts(id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), body TEXT);
            CREATE INDEX posts_user ON posts(user_id);
            INSERT INTO users(name) VALUES ('a;b');
            """
        )
        let migrations = try Migrations(directory: migrationsPath)

        let applied = try migrations.apply(to: fixture.pool, logger: logger)

        #expect(applied == ["001_users.sql", "002_posts.sql"])
        #expect(try userVersion() == 2)
        #expect(try tableNames() == ["posts", "users"])
        #expect(try fixture.pool.read { db in try db.string(sql: "SELECT name FROM users") } == "a;b")
        #expect(try migrations.apply(to: fixture.pool, logger: logger) == [])
    }

    /// Checks that only files numbered above user_version run, after new files are added.
    @Test func apply_runsOnlyNewFiles() throws {
        try write("001_a.sql", "CREATE TABLE a(x);")
        _ = try Migrations(directory: migrationsPath).apply(to: fixture.pool, logger: logger)
        try write("002_b.sql", "CREATE TABLE b(x);")

        let applied = try Migrations(directory: migrationsPath).apply(to: fixture.pool, logger: logger)

        #expect(applied == ["002_b.sql"])
        #expect(try userVersion() == 2)
    }

    /// Checks that a failing file stops the run with its name and SQLite's message, that its earlier statements
    /// are rolled back, and that the database stays at the previous version with later files not run.
    @Test func apply_failingFileLeavesPreviousVersion() throws {
        try write("001_a.sql", "CREATE TABLE a(x);")
        try write("002_b.sql", "CREATE TABLE b(x);\nINSERT INTO missing VALUES (1);")
        try write("003_c.sql", "CREATE TABLE c(x);")
        let migrations = try Migrations(directory: migrationsPath)

        let error = migrationError { _ = try migrations.apply(to: fixture.pool, logger: logger) }

        #expect(error?.file == "002_b.sql")
        #expect(error?.message == "no such table: missing")
        #expect(error?.description == "migration 002_b.sql failed: no such table: missing")
        #expect(try userVersion() == 1)
        #expect(try tableNames() == ["a"])
        let status = try migrations.status(of: fixture.pool)
        #expect(status.applied == ["001_a.sql"])
        #expect(status.pending == ["002_b.sql", "003_c.sql"])
    }

    /// Checks that a file with a syntax error in a later statement fails and is rolled back.
    @Test func apply_syntaxErrorRollsBackFile() throws {
        try write("001_a.sql", "CREATE TABLE a(x); CREATE TABLEE b(x);")
        let error = migrationError {
            _ = try Migrations(directory: migrationsPath).apply(to: fixture.pool, logger: logger)
        }
        #expect(error?.file == "001_a.sql")
        #expect(error?.message.contains("syntax error") == true)
        #expect(try userVersion() == 0)
        #expect(try tableNames() == [])
    }

    /// Checks that BEGIN/COMMIT in a file are refused (each file already runs in its own transaction), while
    /// savepoints are allowed.
    @Test func apply_refusesTransactionControlButAllowsSavepoints() throws {
        try write("001_a.sql", "SAVEPOINT s; CREATE TABLE a(x); RELEASE s;")
        try write("002_b.sql", "CREATE TABLE b(x); COMMIT; CREATE TABLE c(x);")
        let migrations = try Migrations(directory: migrationsPath)

        let error = migrationError { _ = try migrations.apply(to: fixture.pool, logger: logger) }

        #expect(error?.file == "002_b.sql")
        #expect(error?.message.contains("own transaction") == true)
        #expect(try userVersion() == 1)
        #expect(try tableNames() == ["a"])
    }

    /// Checks that migrations run under the service's SQL policy when the pool was prepared by the service.
    @Test func apply_obeysSQLPolicy() throws {
        try write("001_a.sql", "ATTACH DATABASE ':memory:' AS other;")
        let error = migrationError {
            _ = try Migrations(directory: migrationsPath).apply(to: fixture.pool, logger: logger)
        }
        #expect(error?.file == "001_a.sql")
        #expect(error?.message.contains("ATTACH") == true)
        #expect(try userVersion() == 0)
    }

    /// Checks that status lists applied and pending files and the versions.
    @Test func status_listsAppliedAndPending() throws {
        try write("001_a.sql", "CREATE TABLE a(x);")
        try write("002_b.sql", "CREATE TABLE b(x);")
        try write("003_c.sql", "CREATE TABLE c(x);")
        try fixture.pool.write { db in try db.execute(sql: "PRAGMA user_version = 2") }

        let status = try Migrations(directory: migrationsPath).status(of: fixture.pool)

        #expect(status.currentVersion == 2)
        #expect(status.latestVersion == 3)
        #expect(status.applied == ["001_a.sql", "002_b.sql"])
        #expect(status.pending == ["003_c.sql"])
        #expect(!status.isAhead)
    }

    /// Checks that a database migrated past the last file is refused before anything runs.
    @Test func apply_refusesDatabaseNewerThanFiles() throws {
        try write("001_a.sql", "CREATE TABLE a(x);")
        try fixture.pool.write { db in try db.execute(sql: "PRAGMA user_version = 5") }
        let migrations = try Migrations(directory: migrationsPath)

        #expect(try migrations.status(of: fixture.pool).isAhead)
        let error = migrationError { _ = try migrations.apply(to: fixture.pool, logger: logger) }
        #expect(error?.message.contains("version 5") == true)
        #expect(try tableNames() == [])
    }

    /// Checks that a file holding only comments is applied and advances the version.
    @Test func apply_acceptsCommentOnlyFile() throws {
        try write("001_nothing.sql", "-- intentionally empty\n/* nothing */\n")
        #expect(
            try Migrations(directory: migrationsPath).apply(to: fixture.pool, logger: logger) == ["001_nothing.sql"]
        )
        #expect(try userVersion() == 1)
    }
}
