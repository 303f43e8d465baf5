import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// Expiry (idle and lifetime), `read_only` transactions and their cap, shutdown.
@Suite struct TransactionExpiryTests {
    /// Checks that a transaction idle past its `idle_timeout_ms` is rolled back: its changes are gone, the writer
    /// is free for the next, and its ID answers 404 saying it expired; a larger idle timeout is lowered to the
    /// limit, and the answer says which applies.
    @Test func idleTransaction_expires() throws {
        let fixture = try TransactionFixture { $0.transactionIdleTimeout = .milliseconds(250) }
        let opened = fixture.send("POST", "/transactions", json: #"{"idle_timeout_ms": 60000}"#)
        #expect(try bodyObject(opened)["idle_timeout_ms"] == .integer(250))
        guard case .string(let id)? = try bodyObject(opened)["id"] else { throw FixtureError("no id") }
        fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 77"}"#)
        Thread.sleep(forTimeInterval: 0.6)
        let late = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "SELECT 1"}"#)
        #expect(late.status.code == 404)
        #expect(fixture.code(late) == "NO_SUCH_TRANSACTION")
        #expect(text(late).contains("expired"))
        #expect(try fixture.counter() == 0)
        #expect(fixture.service.openTransactionCount == 0)
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 1"}"#).status.code == 200)
        #expect(try fixture.counter() == 1)
        let metrics = try fixture.base.metricsText()
        #expect(sample(#"sqlited_transactions_total{outcome="expired"}"#, in: metrics) == 1)
        #expect(sample(#"sqlited_transactions_open{mode="write"}"#, in: metrics) == 0)
    }

    /// Checks that a transaction in steady use still ends at `transaction_max_lifetime_ms`: it answers until then,
    /// and 404 from then on, however often it is used (polled until the 404, at most 30 s; never before the lifetime).
    @Test func busyTransaction_expiresAtItsLifetime() throws {
        let fixture = try TransactionFixture { $0.transactionMaxLifetime = .seconds(1) }
        let started = ContinuousClock.now
        let id = try fixture.open()
        var statuses: [Int] = []
        while statuses.last != 404, ContinuousClock.now - started < .seconds(30) {
            statuses.append(fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "SELECT 1"}"#).status.code)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(statuses.first == 200)
        #expect(statuses.last == 404)
        #expect(statuses.dropLast().allSatisfy { $0 == 200 })
    }

    /// Checks that a `read_only` transaction sees one snapshot while writes commit around it, refuses writes with
    /// 400 `READONLY_STATEMENT` (staying open), does not hold the writer, and ends with `committed`.
    @Test func readOnly_seesOneSnapshot() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open(#"{"mode": "read_only"}"#)
        let select = #"{"sql": "SELECT n FROM c", "shape": "arrays"}"#
        #expect(text(fixture.send("POST", "/transactions/\(id)", json: select)).hasSuffix(#""rows":[[0]]}"#))
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 5"}"#).status.code == 200)
        #expect(try fixture.counter() == 5)
        #expect(text(fixture.send("POST", "/transactions/\(id)", json: select)).hasSuffix(#""rows":[[0]]}"#))
        let write = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 6"}"#)
        #expect(fixture.code(write) == "READONLY_STATEMENT")
        #expect(try errorObject(write)?["transaction_open"] == .bool(true))
        #expect(text(fixture.send("POST", "/transactions/\(id)/commit")) == #"{"committed":true}"#)
        #expect(try fixture.counter() == 5)
    }

    /// Checks the cap on `read_only` transactions: beyond `max_read_transactions` 503 `TOO_MANY_TRANSACTIONS` with
    /// `Retry-After`; one more may open once one ends; write transactions do not count.
    @Test func readOnlyCap_is503() throws {
        let fixture = try TransactionFixture(readers: 4) { $0.maxReadTransactions = 2 }
        let first = try fixture.open(#"{"mode": "read_only"}"#)
        _ = try fixture.open(#"{"mode": "read_only"}"#)
        let third = fixture.send("POST", "/transactions", json: #"{"mode": "read_only"}"#)
        #expect(third.status.code == 503)
        #expect(fixture.code(third) == "TOO_MANY_TRANSACTIONS")
        #expect(third.headers["Retry-After"] == "1")
        let writer = try fixture.open()
        #expect(fixture.send("DELETE", "/transactions/\(first)").status.code == 200)
        _ = try fixture.open(#"{"mode": "read_only"}"#)
        #expect(fixture.send("DELETE", "/transactions/\(writer)").status.code == 200)
        let metrics = try fixture.base.metricsText()
        #expect(sample(#"sqlited_transactions_open{mode="read_only"}"#, in: metrics) == 2)
    }

    /// Checks shutdown: once it begins no transaction opens (503 `UNAVAILABLE`) while the open ones go on and may
    /// commit; at its end the rest are rolled back.
    @Test func shutdown_letsOpenTransactionsFinish_thenRollsBack() throws {
        let fixture = try TransactionFixture()
        let committing = try fixture.open()
        fixture.service.beginClosingTransactions()
        #expect(fixture.code(fixture.send("POST", "/transactions", json: #"{"mode": "read_only"}"#)) == "UNAVAILABLE")
        fixture.send("POST", "/transactions/\(committing)", json: #"{"sql": "UPDATE c SET n = 1"}"#)
        #expect(fixture.send("POST", "/transactions/\(committing)/commit").status.code == 200)
        #expect(fixture.service.openTransactionCount == 0)
        let fixture2 = try TransactionFixture()
        let left = try fixture2.open()
        fixture2.send("POST", "/transactions/\(left)", json: #"{"sql": "UPDATE c SET n = 9"}"#)
        fixture2.service.beginClosingTransactions()
        fixture2.service.rollBackTransactions()
        #expect(fixture2.service.openTransactionCount == 0)
        #expect(try fixture2.counter() == 0)
        #expect(fixture2.send("POST", "/transactions/\(left)/commit").status.code == 404)
        #expect(try fixture.counter() == 1)
    }
}
