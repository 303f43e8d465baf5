import Dispatch
import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// POST /backup: an online backup into the configured directory.
@Suite struct BackupEndpointTests {
    private static func fixture() throws -> ServiceFixture {
        let fixture = try ServiceFixture()
        // The directory lives inside the fixture's, known only once it exists; setOptions also covers a reload.
        var options = fixture.service.options
        options.backupDirectory = fixture.path("backups")
        fixture.service.setOptions(options)
        return fixture
    }

    /// Opens a backup read-only and returns its integrity check result and the rows of `t`.
    private func inspect(_ path: String) throws -> (integrity: String?, rows: Int64?) {
        var configuration = Configuration()
        configuration.openOptions = [.readOnly, .noMutex]
        let db = try Database(path: path, configuration: configuration)
        defer { try? db.close() }
        return (try db.string(sql: "PRAGMA integrity_check"), try db.int64(sql: "SELECT count(*) FROM t"))
    }

    /// Checks that the answer names a new file in the backup directory (created on demand) with its size, and that
    /// the file holds the data.
    @Test func backup_writesTimestampedFileAndAnswersNameAndSize() throws {
        let fixture = try Self.fixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1), (2)"}"#)

        let response = fixture.send("POST", "/backup")

        #expect(response.status.code == 200)
        let body = try bodyObject(response)
        #expect(body.keys == ["file", "size"])
        guard case .string(let file)? = body["file"], case .integer(let size)? = body["size"] else {
            Issue.record("unexpected body \(body)")
            return
        }
        #expect(file.hasPrefix("app-") && file.hasSuffix("Z.sqlite"))
        #expect(!file.contains("/"))
        let path = fixture.path("backups/\(file)")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == Int(size))
        let copy = try inspect(path)
        #expect(copy.integrity == "ok")
        #expect(copy.rows == 2)
    }

    /// Checks that two backups in a row get two different files.
    @Test func backup_neverReusesAName() throws {
        let fixture = try Self.fixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        var names: Set<String> = []
        for _ in 0..<3 {
            let body = try bodyObject(fixture.send("POST", "/backup", json: "{}"))
            if case .string(let file)? = body["file"] { names.insert(file) }
        }
        #expect(names.count == 3)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.path("backups"))
        #expect(Set(files) == names)
    }

    /// Checks that a backup taken while another thread keeps writing through the service opens cleanly, passes
    /// the integrity check, and holds only whole transactions.
    @Test func backup_underConcurrentWritesPassesIntegrityCheck() throws {
        let fixture = try Self.fixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, x, pad)"}"#)
        let stop = Atomic<Bool>(false)
        let writes = Atomic<Int>(0)
        let failures = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let service = fixture.service
        onNewThread {
            let body = #"""
                {"statements": [{"sql": "INSERT INTO t(x, pad) VALUES (1, randomblob(3000))"},
                                {"sql": "INSERT INTO t(x, pad) VALUES (-1, randomblob(3000))"}]}
                """#
            while !stop.load(ordering: .relaxed) {
                let response = service.handle(
                    HTTPRequest(
                        method: "POST",
                        target: "/transaction",
                        headers: ["Content-Type": "application/json"],
                        body: Array(body.utf8)
                    )
                )
                if response.status.code != 200 {
                    failures.withLock { $0.append(response.status.code) }
                }
                writes.add(1, ordering: .relaxed)
            }
            done.signal()
        }
        while writes.load(ordering: .relaxed) < 30 {
            usleep(1000)
        }
        var responses: [HTTPResponse] = []
        for _ in 0..<3 {
            responses.append(fixture.send("POST", "/backup"))
        }
        stop.store(true, ordering: .relaxed)
        done.wait()

        #expect(failures.withLock { $0 } == [])
        for response in responses {
            #expect(response.status.code == 200)
            guard case .string(let file)? = try bodyObject(response)["file"] else {
                Issue.record("no file in the answer")
                continue
            }
            let copy = try inspect(fixture.path("backups/\(file)"))
            #expect(copy.integrity == "ok")
            #expect((copy.rows ?? 0) % 2 == 0)
            #expect((copy.rows ?? 0) >= 60)
        }
    }

    /// Checks that without a backup directory the endpoint answers 404 NOT_FOUND.
    @Test func backup_absentWithoutDirectory() throws {
        let fixture = try ServiceFixture()
        let response = fixture.send("POST", "/backup")
        #expect(response.status.code == 404)
        guard case .object(let error)? = try bodyObject(response)["error"] else {
            Issue.record("no error object")
            return
        }
        #expect(error["code"] == .string("NOT_FOUND"))
    }

    /// Checks that only POST is allowed, and that the body must be empty or `{}`.
    @Test func backup_rejectsOtherMethodsAndOptions() throws {
        let fixture = try Self.fixture()
        let get = fixture.send("GET", "/backup")
        #expect(get.status.code == 405)
        #expect(get.headers["allow"] == "POST")
        let withKey = fixture.send("POST", "/backup", json: #"{"file": "../../etc/x"}"#)
        #expect(withKey.status.code == 400)
        #expect(fixture.send("POST", "/backup", json: "[]").status.code == 400)
        #expect(fixture.send("POST", "/backup", json: "{").status.code == 400)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("backups")))
    }

    /// Checks the file name: database name, UTC time to the millisecond, attempt suffix, database extension.
    @Test func backupFileName_isTimestamped() {
        let date = Date(timeIntervalSince1970: 1_769_903_999.123)  // 2026-01-31 23:59:59.123 UTC
        #expect(
            SQLiteService.backupFileName(databasePath: "/var/lib/sqlited/app.sqlite", date: date, attempt: 0)
                == "app-20260131T235959.123Z.sqlite"
        )
        #expect(
            SQLiteService.backupFileName(databasePath: "data", date: date, attempt: 2)
                == "data-20260131T235959.123Z-2.db"
        )
    }
}
