import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// Database.backup(to:): SQLite's online backup API into a new file.
@Suite struct BackupTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Opens `path` read-only and returns the result of `PRAGMA integrity_check` and the rows of `t`.
    private func inspect(_ path: String) throws -> (integrity: String?, rows: Int64?) {
        var configuration = Configuration()
        configuration.openOptions = [.readOnly, .noMutex]
        let db = try Database(path: path, configuration: configuration)
        defer { try? db.close() }
        return (try db.string(sql: "PRAGMA integrity_check"), try db.int64(sql: "SELECT count(*) FROM t"))
    }

    /// Checks that the copy holds the source's rows, passes the integrity check, and that no partial file is left.
    @Test func backup_copiesDatabaseIntoNewFile() throws {
        let db = try Database(path: directory.path("source.sqlite"))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.executeScript("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO t VALUES (3);")
        let destination = directory.path("copy.sqlite")

        try db.backup(to: destination)

        let copy = try inspect(destination)
        #expect(copy.integrity == "ok")
        #expect(copy.rows == 3)
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }

    /// Checks that an existing destination is refused with SQLITE_CANTOPEN and left untouched.
    @Test func backup_refusesExistingDestination() throws {
        let db = try Database(path: directory.path("source.sqlite"))
        try db.execute(sql: "CREATE TABLE t(x)")
        let destination = directory.path("copy.sqlite")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: destination))

        let error = databaseError { try db.backup(to: destination) }

        #expect(error?.extendedResultCode == .SQLITE_CANTOPEN)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("keep me".utf8))
    }

    /// Checks that a destination that cannot be created fails and leaves no file behind.
    @Test func backup_intoMissingDirectoryFailsWithoutLeavingFiles() throws {
        let db = try Database(path: directory.path("source.sqlite"))
        try db.execute(sql: "CREATE TABLE t(x)")
        let destination = directory.path("missing/copy.sqlite")

        let error = databaseError { try db.backup(to: destination) }

        #expect(error?.resultCode == .SQLITE_CANTOPEN)
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }

    /// Checks that a backup made on a reader inside a read transaction copies that transaction's snapshot, not a
    /// write committed after it began.
    @Test func backup_insideReadTransactionCopiesItsSnapshot() throws {
        let pool = try DatabasePool(path: directory.path("source.sqlite"))
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let destination = directory.path("copy.sqlite")

        try pool.read { db in
            #expect(try db.int64(sql: "SELECT count(*) FROM t") == 1)  // takes the snapshot
            let done = DispatchSemaphore(value: 0)
            onNewThread {
                try? pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
                done.signal()
            }
            done.wait()
            try db.backup(to: destination)
        }

        #expect(try pool.read { db in try db.int64(sql: "SELECT count(*) FROM t") } == 2)
        #expect(try inspect(destination).rows == 1)
        try pool.close()
    }

    /// Checks that backups taken from readers while another thread keeps committing are consistent: each passes
    /// the integrity check and holds only whole transactions (every transaction inserts a +1 and a -1 row).
    @Test func backup_underConcurrentWritesIsConsistent() throws {
        let pool = try DatabasePool(path: directory.path("source.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER, pad BLOB)") }
        let stop = Atomic<Bool>(false)
        let writeFailure = Mutex<String?>(nil)
        let commits = Atomic<Int>(0)
        let writerDone = DispatchSemaphore(value: 0)
        onNewThread {
            while !stop.load(ordering: .relaxed) {
                do {
                    try pool.writeInTransaction { db in
                        try db.execute(sql: "INSERT INTO t(x, pad) VALUES (1, randomblob(2000))")
                        try db.execute(sql: "INSERT INTO t(x, pad) VALUES (-1, randomblob(2000))")
                    }
                    commits.add(1, ordering: .relaxed)
                } catch {
                    writeFailure.withLock { $0 = "\(error)" }
                    break
                }
            }
            writerDone.signal()
        }
        // Let the writer get going so that the backups copy a database that is changing.
        while commits.load(ordering: .relaxed) < 50, writeFailure.withLock({ $0 }) == nil {
            usleep(1000)
        }
        var copies: [String] = []
        for index in 0..<5 {
            let destination = directory.path("copy-\(index).sqlite")
            try pool.read { db in try db.backup(to: destination) }
            copies.append(destination)
        }
        stop.store(true, ordering: .relaxed)
        writerDone.wait()

        #expect(writeFailure.withLock { $0 } == nil)
        for copy in copies {
            var configuration = Configuration()
            configuration.openOptions = [.readOnly, .noMutex]
            let db = try Database(path: copy, configuration: configuration)
            #expect(try db.string(sql: "PRAGMA integrity_check") == "ok")
            #expect(try db.int64(sql: "SELECT total(x) FROM t") == 0)
            #expect(try db.int64(sql: "SELECT count(*) % 2 FROM t") == 0)
            #expect(try db.int64(sql: "SELECT count(*) FROM t") ?? 0 >= 100)
            try db.close()
        }
        try pool.close()
    }
}
