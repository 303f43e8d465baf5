import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// One write transaction at a time, holding the writer: other writes and opens wait for it until their limit
/// (503 `SQLITE_BUSY` with `Retry-After`), and go on as soon as it ends.
@Suite struct TransactionWriterTests {
    /// Checks that while a write transaction is open a write and a second open wait `writerWaitTimeout`, then get
    /// 503 `SQLITE_BUSY` with `Retry-After`, with group commit on and off; reads go on meanwhile.
    @Test(arguments: [true, false])
    func writesWhileOpen_wait_then503(groupCommit: Bool) throws {
        let fixture = try TransactionFixture { $0.writerWaitTimeout = .milliseconds(300) }
        var options = fixture.service.options
        options.groupCommit.isEnabled = groupCommit
        fixture.service.setOptions(options)
        let id = try fixture.open()
        fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 1"}"#)
        let started = ContinuousClock.now
        let write = fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 2"}"#)
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(write.status.code == 503)
        #expect(fixture.code(write) == "SQLITE_BUSY")
        #expect(write.headers["Retry-After"] == "1")
        let second = fixture.send("POST", "/transactions")
        #expect(second.status.code == 503)
        #expect(fixture.code(second) == "SQLITE_BUSY")
        #expect(try fixture.counter() == 0)
        #expect(fixture.send("POST", "/transactions/\(id)/commit").status.code == 200)
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = n + 1"}"#).status.code == 200)
        #expect(try fixture.counter() == 2)
        let metrics = try fixture.base.metricsText()
        #expect(sample(#"sqlited_transaction_waits_total{outcome="busy"}"#, in: metrics) == 1)
    }

    /// Checks that a write waiting for the writer runs as soon as the transaction commits, after its changes,
    /// through the event loop's deferred path as through a handler thread; and that a second open waiting is
    /// granted.
    @Test func waitingWrites_runWhenTheTransactionEnds() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open()
        fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 10"}"#)
        let waiting = fixture.sendLater("POST", "/update", json: #"{"sql": "UPDATE c SET n = n * 2"}"#)
        let deferred = PendingResponseBox()
        let request = ServiceFixture.request("POST", "/update", json: #"{"sql": "UPDATE c SET n = n + 1"}"#, key: nil)
        try waitForWriterWaits(1, fixture)
        #expect(fixture.service.handleDeferred(request) { deferred.set($0) })
        let opener = fixture.sendLater("POST", "/transactions")
        try waitForWriterWaits(2, fixture)
        #expect(deferred.get() == nil)
        #expect(fixture.send("POST", "/transactions/\(id)/commit").status.code == 200)
        #expect(waiting.wait()?.status.code == 200)
        let opened = try #require(opener.wait())
        #expect(opened.status.code == 201)
        // The deferred write queued before the open: it ran first.
        let deadline = ContinuousClock.now + .seconds(5)
        while deferred.get() == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(deferred.get()?.status.code == 200)
        guard case .string(let second)? = try bodyObject(opened)["id"] else { throw FixtureError("no id") }
        #expect(fixture.send("POST", "/transactions/\(second)/rollback").status.code == 200)
        #expect(try fixture.counter() == 21)
        let metrics = try fixture.base.metricsText()
        #expect(sample(#"sqlited_transaction_waits_total{outcome="granted"}"#, in: metrics) == 1)
    }

    /// Checks the keyed commit: its answer is stored with the transaction's changes, a retry with the same key
    /// (the ID gone by then) is answered as stored with `Idempotent-Replayed: true`, another request under the key
    /// is 422; the header is ignored on the transaction's other requests, malformed or not.
    @Test func keyedCommit_isStoredInTheTransaction() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open()
        let step = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 7"}"#, key: "\u{1}bad")
        #expect(step.status.code == 200)
        let commit = fixture.send("POST", "/transactions/\(id)/commit", key: "commit-1")
        #expect(text(commit) == #"{"committed":true}"#)
        #expect(replayed(commit) == nil)
        #expect(try fixture.base.count(IdempotentWrite.table) == 1)
        let retry = fixture.send("POST", "/transactions/\(id)/commit", key: "commit-1")
        #expect(retry.status.code == 200)
        #expect(text(retry) == #"{"committed":true}"#)
        #expect(replayed(retry) == "true")
        #expect(fixture.send("POST", "/transactions/\(id)/rollback", key: "commit-1").status.code == 404)
        let other = try fixture.open()
        let reused = fixture.send("POST", "/transactions/\(other)/commit", key: "commit-1")
        #expect(reused.status.code == 422)
        #expect(try errorObject(reused)?["transaction_open"] == .bool(true))
        #expect(fixture.send("POST", "/transactions/\(other)/commit", key: "commit-2").status.code == 200)
        // An unknown ID under a fresh key: 404, and the key stays free.
        #expect(fixture.send("POST", "/transactions/\(id)/commit", key: "commit-3").status.code == 404)
        #expect(try fixture.base.count(IdempotentWrite.table) == 2)
        #expect(try fixture.counter() == 7)
        #expect(fixture.send("POST", "/transactions/\(other)/commit", key: "bad key").status.code == 400)
    }

    /// Checks that a failing `COMMIT` (a deferred foreign key left violated) rolls everything back, says so, and
    /// frees the writer.
    @Test func failingCommit_rollsBack() throws {
        let fixture = try TransactionFixture()
        fixture.send(
            "POST",
            "/batch",
            json:
                #"{"statements": [{"sql": "CREATE TABLE p(id INTEGER PRIMARY KEY)"}, {"sql": "CREATE TABLE k(p INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)"}, {"sql": "PRAGMA foreign_keys = ON"}]}"#
        )
        let id = try fixture.open()
        // The violation may stay open between requests (it is deferred to the COMMIT).
        let insert = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "INSERT INTO k VALUES (9)"}"#)
        #expect(insert.status.code == 200)
        fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 1"}"#)
        let commit = fixture.send("POST", "/transactions/\(id)/commit")
        if commit.status.code == 200 {
            // foreign_keys is off on this connection (the PRAGMA is not allowed): nothing to check.
            return
        }
        #expect(commit.status.code == 409)
        let error = try #require(try errorObject(commit))
        #expect(error["rolled_back"] == .bool(true))
        #expect(error["transaction_open"] == .bool(false))
        #expect(try fixture.counter() == 0)
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 2"}"#).status.code == 200)
    }
}

/// Waits until `count` writes (or opens) wait for the writer.
private func waitForWriterWaits(_ count: Int, _ fixture: TransactionFixture) throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while fixture.base.pool.writerWaitCount < count {
        guard ContinuousClock.now < deadline else { throw FixtureError("\(count) writes never waited") }
        Thread.sleep(forTimeInterval: 0.005)
    }
}

/// A response handed over by a callback.
final class PendingResponseBox: Sendable {
    private let value = Mutex<HTTPResponse?>(nil)
    func set(_ response: HTTPResponse) { value.withLock { $0 = response } }
    func get() -> HTTPResponse? { value.withLock { $0 } }
}
