import Dispatch
import Foundation
import SQLiteEngine
import Synchronization
import Testing

/// `Idempotency-Key` against the real binary (API.md, "Safe retries"): the shared local server.
@Suite struct IdempotencyEndToEndTests {
    /// A key no other test (or run) uses.
    private static func uniqueKey() -> String {
        "k-" + UUID().uuidString
    }

    /// Checks that a retry gets the first answer byte for byte with `Idempotent-Replayed: true`, and runs nothing.
    @Test func retry_isAnsweredByteForByte() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("idem")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, x)")
        let key = Self.uniqueKey()
        let body = #"{"sql": "INSERT INTO \#(table)(x) VALUES (randomblob(8)) RETURNING id, x"}"#
        let first = try client.postJSON("/update", text: body, headers: [("Idempotency-Key", key)])
        #expect(first.status == 200)
        #expect(first.header("Idempotent-Replayed") == nil)
        let again = try client.postJSON("/update", text: body, headers: [("Idempotency-Key", key)])
        #expect(again.status == 200)
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(again.body == first.body)
        expectJSONContentType(again)
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
        let reused = try client.postJSON(
            "/update",
            text: #"{"sql": "DELETE FROM \#(table)"}"#,
            headers: [("Idempotency-Key", key)]
        )
        #expect(reused.status == 422)
        #expect(try reused.json()["error"]?["code"]?.stringValue == "IDEMPOTENCY_KEY_REUSED")
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 1)
    }

    /// Checks that the same keyed write from many clients at once runs once: each client gets the answer, the
    /// replay or 409 `IDEMPOTENCY_IN_PROGRESS` with `Retry-After`, and the table holds one row.
    @Test func sameKeyFromManyClientsAtOnce_runsOnce() throws {
        let server = try SharedSqlited.get()
        let setup = try server.makeClient()
        let table = uniqueTableName("idem")
        try setup.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, x)")
        for round in 0..<5 {
            let key = Self.uniqueKey()
            let body = #"{"sql": "INSERT INTO \#(table)(x) VALUES (\#(round))"}"#
            let answers = Mutex<[(Int, String?, String?)]>([])
            let clients = 8
            let group = DispatchGroup()
            for _ in 0..<clients {
                group.enter()
                Thread {
                    defer { group.leave() }
                    guard let client = try? server.makeClient(),
                        let response = try? client.postJSON("/update", text: body, headers: [("Idempotency-Key", key)])
                    else { return }
                    answers.withLock {
                        $0.append(
                            (response.status, response.header("Idempotent-Replayed"), response.header("Retry-After"))
                        )
                    }
                }.start()
            }
            group.wait()
            let all = answers.withLock { $0 }
            #expect(all.count == clients)
            #expect(all.filter { $0.0 == 200 && $0.1 == nil }.count == 1, "\(all)")
            #expect(all.allSatisfy { $0.0 == 200 || ($0.0 == 409 && $0.2 == "1") }, "\(all)")
            #expect(try setup.scalarInt("SELECT count(*) FROM \(table) WHERE x = \(round)") == 1)
        }
    }

    /// Checks that the daemon deletes expired keys in the background (`idempotency.retention` of 1 s from the
    /// environment), with no keyed write coming after them: once it has stopped, the file holds the writes' rows
    /// and no key.
    @Test func expiredKeys_areDeletedInTheBackground() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-idem")
        var environment = ProcessInfo.processInfo.environment
        environment["SQLITED_IDEMPOTENCY_RETENTION"] = "1"
        let database = directory.path("db.sqlite").path
        let server = try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: ["--database", database, "--host", "127.0.0.1", "--port", "0"],
            environment: environment
        )
        let client = try server.makeClient()
        try client.update("CREATE TABLE t(x)")
        for key in ["a", "b", "c"] {
            let response = try client.postJSON(
                "/update",
                text: #"{"sql": "INSERT INTO t VALUES (1)"}"#,
                headers: [("Idempotency-Key", key)]
            )
            #expect(response.status == 200)
        }
        Thread.sleep(forTimeInterval: 3.5)
        _ = try server.stop()
        var configuration = Configuration()
        configuration.openOptions = [.readOnly, .noMutex]
        let db = try Database(path: database, configuration: configuration)
        defer { try? db.close() }
        #expect(try db.int64(sql: "SELECT count(*) FROM t") == 3)
        #expect(try db.int64(sql: "SELECT count(*) FROM _sqlited_idempotency") == 0)
    }

    /// Checks that a malformed key is 400 on a write (nothing written) and ignored on `/query` and a `GET`.
    @Test func malformedKey_is400OnWritesOnly() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("idem")
        try client.update("CREATE TABLE \(table)(x)")
        let bad = [("Idempotency-Key", "has space")]
        let write = try client.postJSON("/update", text: #"{"sql": "INSERT INTO \#(table) VALUES (1)"}"#, headers: bad)
        #expect(write.status == 400)
        #expect(try write.json()["error"]?["code"]?.stringValue == "INVALID_REQUEST")
        let tooLong = [("Idempotency-Key", String(repeating: "k", count: 256))]
        #expect(
            try client.postJSON("/tables/\(table)/rows", text: #"{"rows": [{"x": 1}]}"#, headers: tooLong).status == 400
        )
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == 0)
        #expect(try client.postJSON("/query", text: #"{"sql": "SELECT 1"}"#, headers: bad).status == 200)
        #expect(try client.get("/tables/\(table)/rows", headers: bad).status == 200)
    }

    /// Checks that the server's table is not listed by `/schema` or `/tables` and refused to clients' SQL.
    @Test func serverTable_isHidden() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("idem")
        try client.update("CREATE TABLE \(table)(x)")
        _ = try client.postJSON(
            "/update",
            text: #"{"sql": "INSERT INTO \#(table) VALUES (1)"}"#,
            headers: [("Idempotency-Key", Self.uniqueKey())]
        )
        #expect(!(try client.get("/schema").bodyText.contains("_sqlited_idempotency")))
        #expect(!(try client.get("/tables").bodyText.contains("_sqlited_idempotency")))
        let read = try client.post("/query", #"{"sql": "SELECT count(*) FROM _sqlited_idempotency"}"#)
        #expect(read.status == 403)
        #expect(try read.json()["error"]?["code"]?.stringValue == "SQLITE_AUTH")
    }
}
