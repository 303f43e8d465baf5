import Foundation
import Testing

/// `sqlited vacuum|checkpoint|optimize` and the `/admin/…` endpoints, through the real binary.
@Suite struct MaintenanceCommandTests {
    /// The offline commands work on a database a server is serving, which keeps its data and keeps serving.
    @Test func commands_runBesideARunningServer() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-maint")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        let client = try server.makeClient()
        try client.update("CREATE TABLE t(id INTEGER PRIMARY KEY, pad BLOB)")
        try client.update(
            "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 500) "
                + "INSERT INTO t SELECT i, randomblob(2000) FROM s"
        )
        try client.update("DELETE FROM t WHERE id > 5")
        let database = directory.url.appendingPathComponent("db.sqlite").path

        let vacuum = try OperationsCommandTests.run(["vacuum", "--database", database])
        #expect(vacuum.status == 0, "\(vacuum.stderr)")
        #expect(vacuum.stdout.hasPrefix("vacuumed \(database): "), "\(vacuum.stdout)")
        let checkpoint = try OperationsCommandTests.run(["checkpoint", "--database", database, "--mode", "truncate"])
        #expect(checkpoint.status == 0, "\(checkpoint.stderr)")
        #expect(checkpoint.stdout.hasPrefix("checkpoint truncate: "), "\(checkpoint.stdout)")
        let optimize = try OperationsCommandTests.run(["optimize", "--database", database, "--analyze"])
        #expect(optimize.status == 0, "\(optimize.stderr)")

        #expect(try client.scalarInt("SELECT count(*) FROM t") == 5)
        try client.update("INSERT INTO t(pad) VALUES (x'00')")
        #expect(try client.scalarInt("SELECT count(*) FROM t") == 6)
        #expect(try server.stop() == .exited(0))
        // Reclaimed: 500 rows of 2,000 bytes deleted down to 6.
        let size = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? .max
        #expect(size < 100_000)
    }

    /// A lock the command cannot get within its busy timeout ends it with status 75 and says so.
    @Test func command_thatCannotGetTheLock_saysSoAndFails() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-maint")
        let database = directory.url.appendingPathComponent("db.sqlite").path
        let holder = try ServerProcess.startSqlited(directory: directory.url)
        let client = try holder.makeClient()
        try client.update("CREATE TABLE t(x)")
        #expect(try holder.stop() == .exited(0))
        // A write transaction held open by another process: the sqlite3 shell, if present, else skip.
        let shell = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: shell), "the sqlite3 shell is needed")
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: shell)
        locker.arguments = [database]
        let input = Pipe()
        locker.standardInput = input
        locker.standardOutput = FileHandle.nullDevice
        try locker.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE; INSERT INTO t VALUES (1); SELECT 1;\n".utf8))
        defer {
            input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
            locker.waitUntilExit()
        }
        Thread.sleep(forTimeInterval: 0.3)

        let vacuum = try OperationsCommandTests.run(["vacuum", "--database", database, "--busy-timeout-ms", "100"])
        #expect(vacuum.status == 75)
        #expect(vacuum.stderr.contains("could not get its lock within 100 ms"), "\(vacuum.stderr)")
    }

    /// A missing database is refused before anything is created.
    @Test func command_onAMissingDatabase_isRefused() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-maint")
        let missing = directory.url.appendingPathComponent("missing.sqlite").path
        let result = try OperationsCommandTests.run(["optimize", "--database", missing])
        #expect(result.status != 0)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// The endpoints over TCP: admin only when tokens are configured, and the answers' shapes.
    @Test func endpoints_overTCP() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-maint")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        let client = try server.makeClient()
        try client.update("CREATE TABLE t(x)")
        let vacuum = try client.postJSON("/admin/vacuum", text: "{}")
        #expect(vacuum.status == 200, "\(vacuum.bodyText)")
        #expect(vacuum.bodyText.hasPrefix(#"{"size_before":"#), "\(vacuum.bodyText)")
        let checkpoint = try client.postJSON("/admin/checkpoint", text: #"{"mode": "full"}"#)
        #expect(checkpoint.status == 200, "\(checkpoint.bodyText)")
        #expect(checkpoint.bodyText.hasPrefix(#"{"mode":"full","wal_frames":"#), "\(checkpoint.bodyText)")
        let optimize = try client.postJSON("/admin/optimize", text: #"{"analyze": true}"#)
        #expect(optimize.bodyText == #"{"analyzed":true}"#)
        #expect(try server.stop() == .exited(0))
    }
}
