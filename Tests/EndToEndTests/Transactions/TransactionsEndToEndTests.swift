import Dispatch
import Foundation
import SQLiteEngine
import Synchronization
import Testing

/// `/transactions` against the real binary (API.md, "Interactive transactions").
@Suite(.serialized) struct TransactionsEndToEndTests {
    /// Checks that no update is lost: 16 clients each increment one counter 500 times through `/transactions`
    /// (read, add one in the client, write, commit; again on 503): the counter ends at exactly 8,000.
    @Test func sixteenClients_incrementingOneCounter_loseNoUpdate() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-txn")
        let server = try startTransactionServer(directory)
        defer { _ = server.kill() }
        let setup = try server.makeClient()
        try setup.update("CREATE TABLE counter(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try setup.update("INSERT INTO counter VALUES (1, 0)")
        let failures = Mutex<[String]>([])
        let retries = Atomic<Int>(0)
        let group = DispatchGroup()
        let baseURL = server.baseURL
        for _ in 0..<16 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let client = try HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
                    for _ in 0..<500 {
                        retries.add(try client.incrementInTransaction(table: "counter") - 1, ordering: .relaxed)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(try setup.scalarInt("SELECT n FROM counter WHERE id = 1") == 8000)
        print("no lost update: 8,000 increments, \(retries.load(ordering: .relaxed)) tries again")
    }

    /// Checks that a `read_only` transaction sees one snapshot while writes commit around it, and that one
    /// transaction is usable from several connections in turn.
    @Test func readOnly_seesOneSnapshot_fromSeveralConnections() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-txn")
        let server = try startTransactionServer(directory)
        defer { _ = server.kill() }
        let writer = try server.makeClient()
        try writer.update("CREATE TABLE s(x INTEGER)")
        try writer.update("INSERT INTO s VALUES (1)")
        let id = try writer.openTransactionID(#"{"mode": "read_only"}"#)
        let select = #"{"sql": "SELECT sum(x) FROM s", "shape": "arrays"}"#
        for round in 0..<5 {
            try writer.update("INSERT INTO s VALUES (\(round + 10))")
            let reader = try server.makeClient()
            let seen = try reader.step(id, select)
            #expect(try seen.json()["rows"]?[0]?[0]?.int64Value == 1, "\(seen.bodyText)")
            reader.close()
        }
        #expect(try writer.scalarInt("SELECT sum(x) FROM s") == 61)
        let write = try writer.step(id, #"{"sql": "INSERT INTO s VALUES (5)"}"#)
        #expect(write.status == 400)
        #expect(write.errorCode == "READONLY_STATEMENT")
        #expect(try writer.end(id).bodyText == #"{"committed":true}"#)
    }

    /// Checks that an expired transaction's changes are gone and the writer free for the next, and that a client
    /// that vanishes mid-transaction (its connection closed) frees the writer at the idle timeout.
    @Test func expiredAndVanishedTransactions_freeTheWriter() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-txn")
        let server = try startTransactionServer(directory)
        defer { _ = server.kill() }
        let client = try server.makeClient()
        try client.update("CREATE TABLE e(x INTEGER)")
        let id = try client.openTransactionID(#"{"idle_timeout_ms": 300}"#)
        #expect(try client.step(id, #"{"sql": "INSERT INTO e VALUES (1)"}"#).status == 200)
        Thread.sleep(forTimeInterval: 0.8)
        let late = try client.step(id, #"{"sql": "SELECT 1"}"#)
        #expect(late.status == 404)
        #expect(late.errorCode == "NO_SUCH_TRANSACTION")
        #expect(late.bodyText.contains("expired"))
        #expect(try client.scalarInt("SELECT count(*) FROM e") == 0)
        let next = try client.openTransactionID()
        #expect(try client.end(id).status == 404)
        #expect(try client.end(next, "rollback").status == 200)

        let vanishing = try server.makeClient()
        let held = try vanishing.openTransactionID(#"{"idle_timeout_ms": 700}"#)
        #expect(try vanishing.step(held, #"{"sql": "INSERT INTO e VALUES (2)"}"#).status == 200)
        vanishing.close()
        let started = Date()
        let write = try client.postJSON("/update", text: #"{"sql": "INSERT INTO e VALUES (3)"}"#)
        let waited = Date().timeIntervalSince(started)
        #expect(write.status == 200, "\(write.bodyText)")
        #expect(waited > 0.3 && waited < 4.5, "waited \(waited) s")
        #expect(try client.scalarInt("SELECT sum(x) FROM e") == 3)
    }

    /// Checks the 404s (unknown, finished, another token's, expired), 409 `TRANSACTION_BUSY` while a request of the
    /// transaction runs on another connection, and 503 `TOO_MANY_TRANSACTIONS` past the read cap.
    @Test func notFoundBusyAndTooMany() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-txn")
        let server = try startTransactionServer(
            directory,
            environment: ["SQLITED_LIMITS_MAX_READ_TRANSACTIONS": "1"]
        )
        defer { _ = server.kill() }
        let client = try server.makeClient()
        #expect(try client.step(String(repeating: "a", count: 32), #"{"sql": "SELECT 1"}"#).status == 404)
        let id = try client.openTransactionID()
        let baseURL = server.baseURL
        let slowSQL =
            #"{"sql": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000) SELECT count(*) FROM r", "timeout_ms": 1000}"#
        // A slow request on another connection, then one probe while it runs (tried again when the probe came
        // before the slow request had the transaction).
        var busy: HTTPTestResponse?
        for _ in 0..<5 where busy?.status != 409 {
            let done = DispatchSemaphore(value: 0)
            Thread {
                let other = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
                _ = try? other?.step(id, slowSQL)
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.3)
            busy = try client.step(id, #"{"sql": "SELECT 1"}"#)
            done.wait()
        }
        #expect(busy?.status == 409)
        #expect(busy?.errorCode == "TRANSACTION_BUSY")
        #expect(busy?.header("Retry-After") == "1")
        #expect(try client.end(id).status == 200)
        #expect(try client.end(id).status == 404)
        let reader = try client.openTransactionID(#"{"mode": "read_only"}"#)
        let tooMany = try client.openTransaction(#"{"mode": "read_only"}"#)
        #expect(tooMany.status == 503)
        #expect(tooMany.errorCode == "TOO_MANY_TRANSACTIONS")
        #expect(tooMany.header("Retry-After") == "1")
        #expect(try client.end(reader, "rollback").status == 200)
        #expect(try client.request(method: "DELETE", path: "/transactions/\(reader)").status == 404)
    }
}
