import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// `/transactions` on the local storage (API.md, "Interactive transactions"), through the service's handler.
@Suite struct TransactionsTests {
    /// Checks the open's answer (201, `Location`, a 128-bit hex ID, the mode and idle timeout), a read, a write and
    /// the commit, after which the change is visible and the ID unknown.
    @Test func open_readWriteCommit() throws {
        let fixture = try TransactionFixture()
        let opened = fixture.send("POST", "/transactions", json: #"{"mode": "immediate"}"#)
        #expect(opened.status.code == 201)
        let body = try bodyObject(opened)
        guard case .string(let id)? = body["id"] else { throw FixtureError("no id") }
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        #expect(opened.headers["Location"] == "/transactions/\(id)")
        #expect(body["mode"] == .string("immediate"))
        #expect(body["idle_timeout_ms"] == .integer(5000))
        let read = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "SELECT n FROM c WHERE id = 1"}"#)
        #expect(text(read) == #"{"columns":["n"],"types":["INTEGER"],"rows":[{"n":0}]}"#)
        let write = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 1 WHERE id = 1"}"#)
        #expect(text(write) == #"{"changes":1,"last_insert_rowid":null}"#)
        #expect(try fixture.counter() == 0)
        let commit = fixture.send("POST", "/transactions/\(id)/commit")
        #expect(commit.status.code == 200)
        #expect(text(commit) == #"{"committed":true}"#)
        #expect(try fixture.counter() == 1)
        let again = fixture.send("POST", "/transactions/\(id)/commit")
        #expect(again.status.code == 404)
        #expect(fixture.code(again) == "NO_SUCH_TRANSACTION")
        #expect(!text(again).contains("expired"))
    }

    /// Checks that `statements` answers `results`, and that a failing statement undoes its own request's
    /// statements only: the error has `statement_index` and `"transaction_open": true`, the earlier request's
    /// changes stay and commit.
    @Test func failingStatement_undoesOnlyItsRequest() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open()
        let first = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 10"}"#)
        #expect(first.status.code == 200)
        let list = fixture.send(
            "POST",
            "/transactions/\(id)",
            json: #"{"statements": [{"sql": "UPDATE c SET n = n + 5"}, {"sql": "SELECT nope FROM c"}]}"#
        )
        #expect(list.status.code == 400)
        let error = try #require(try errorObject(list))
        #expect(error["statement_index"] == .integer(1))
        #expect(error["transaction_open"] == .bool(true))
        let ok = fixture.send(
            "POST",
            "/transactions/\(id)",
            json: #"{"statements": [{"sql": "SELECT n FROM c"}], "shape": "arrays"}"#
        )
        #expect(text(ok) == #"{"results":[{"columns":["n"],"types":["INTEGER"],"rows":[[10]]}]}"#)
        let lone = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "INSERT INTO c VALUES (1, 1)"}"#)
        #expect(lone.status.code == 409)
        #expect(try errorObject(lone)?["statement_index"] == .integer(0))
        #expect(fixture.send("POST", "/transactions/\(id)/commit").status.code == 200)
        #expect(try fixture.counter() == 10)
    }

    /// Checks that a malformed body is 400 with nothing run, the transaction as it was; and that `BEGIN`, `COMMIT`
    /// and `ROLLBACK` stay refused while savepoints are allowed.
    @Test func malformedBodyAndTransactionControl_changeNothing() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open()
        fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 3"}"#)
        for body in [#"{"sql": "#, #"{"sql": 5}"#, #"{"statements": []}"#, #"{"sql": "SELECT 1", "nope": 1}"#, "[]"] {
            let response = fixture.send("POST", "/transactions/\(id)", json: body)
            #expect(response.status.code == 400, "\(body)")
            #expect(try errorObject(response)?["transaction_open"] == nil)
        }
        for sql in ["BEGIN", "COMMIT", "ROLLBACK", "END"] {
            let response = fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "\#(sql)"}"#)
            #expect(fixture.code(response) == "TRANSACTION_CONTROL", "\(sql)")
        }
        let savepoints = fixture.send(
            "POST",
            "/transactions/\(id)",
            json:
                #"{"statements": [{"sql": "SAVEPOINT a"}, {"sql": "UPDATE c SET n = 99"}, {"sql": "ROLLBACK TO a"}, {"sql": "RELEASE a"}]}"#
        )
        #expect(savepoints.status.code == 200, "\(text(savepoints))")
        #expect(fixture.send("POST", "/transactions/\(id)/commit", json: "{}").status.code == 200)
        #expect(try fixture.counter() == 3)
    }

    /// Checks `POST …/rollback` and `DELETE /transactions/{id}`: `{"rolled_back": true}`, the changes gone, the ID
    /// unknown, the writer free.
    @Test func rollbackAndDelete_undoEverything() throws {
        let fixture = try TransactionFixture()
        for end in [("POST", "/rollback"), ("DELETE", "")] {
            let id = try fixture.open()
            fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "UPDATE c SET n = 42"}"#)
            let response = fixture.send(end.0, "/transactions/\(id)\(end.1)")
            #expect(text(response) == #"{"rolled_back":true}"#)
            #expect(try fixture.counter() == 0)
            #expect(fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "SELECT 1"}"#).status.code == 404)
        }
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 5"}"#).status.code == 200)
        #expect(try fixture.counter() == 5)
    }

    /// Checks the 404s: an unknown ID, a malformed one, and another token's (which learns nothing); and the roles:
    /// a `read` token may open `read_only` only.
    @Test func otherTokensAndUnknownIDs_are404() throws {
        let fixture = try TransactionFixture()
        fixture.service.setTokens(try SecurityFixture.standardStore())
        let writer = SecurityFixture.writeToken
        let id = try fixture.open(token: writer)
        for target in ["/transactions/\(String(repeating: "0", count: 32))", "/transactions/zz", "/transactions/\(id)"]
        {
            let token = target.hasSuffix(id) ? SecurityFixture.adminToken : writer
            let response = fixture.send("POST", target, json: #"{"sql": "SELECT 1"}"#, token: token)
            #expect(response.status.code == 404, "\(target)")
            #expect(fixture.code(response) == "NO_SUCH_TRANSACTION")
        }
        #expect(
            fixture.send("POST", "/transactions/\(id)/commit", token: SecurityFixture.adminToken).status.code == 404
        )
        #expect(fixture.send("POST", "/transactions/\(id)/commit", token: writer).status.code == 200)
        let reader = SecurityFixture.readToken
        #expect(fixture.send("POST", "/transactions", token: reader).status.code == 403)
        let readOnly = try fixture.open(#"{"mode": "read_only"}"#, token: reader)
        #expect(fixture.send("POST", "/transactions/\(readOnly)/rollback", token: reader).status.code == 200)
        #expect(fixture.send("POST", "/transactions").status.code == 401)
    }

    /// Checks that a request on a transaction while another request holds it is 409 `TRANSACTION_BUSY` (with
    /// `Retry-After`), commit and rollback included, and that the transaction serves the next request once the first
    /// is answered.
    @Test func requestWhileAnotherRuns_is409Busy() throws {
        let fixture = try TransactionFixture()
        let id = try fixture.open()
        // The registry's hold, as a running request takes it.
        _ = try fixture.service.transactions.checkOut(id, token: nil)
        for target in ["/transactions/\(id)", "/transactions/\(id)/commit", "/transactions/\(id)/rollback"] {
            let busy = fixture.send("POST", target, json: target.hasSuffix(id) ? #"{"sql": "SELECT 1"}"# : nil)
            #expect(busy.status.code == 409, "\(target)")
            #expect(fixture.code(busy) == "TRANSACTION_BUSY")
            #expect(busy.headers["Retry-After"] == "1")
        }
        fixture.service.transactions.checkIn(id)
        #expect(fixture.send("POST", "/transactions/\(id)", json: #"{"sql": "SELECT 1"}"#).status.code == 200)
        #expect(fixture.send("POST", "/transactions/\(id)/commit").status.code == 200)
    }

    /// Checks that a statement interrupted by its time limit answers `TIMEOUT`, and says whether SQLite kept the
    /// transaction (a read interrupted does; a write interrupted rolls it back, and its ID is then unknown).
    @Test func interruptedStatement_saysWhetherTheTransactionIsOpen() throws {
        let fixture = try TransactionFixture()
        let slow = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000)"
        let read = try fixture.open()
        let readAnswer = fixture.send(
            "POST",
            "/transactions/\(read)",
            json: #"{"sql": "\#(slow) SELECT count(*) FROM r", "timeout_ms": 200}"#
        )
        #expect(fixture.code(readAnswer) == "TIMEOUT")
        let open = try #require(try errorObject(readAnswer))["transaction_open"]
        #expect(open != nil)
        if open == .bool(true) {
            #expect(fixture.send("POST", "/transactions/\(read)/commit").status.code == 200)
        } else {
            #expect(fixture.send("POST", "/transactions/\(read)/commit").status.code == 404)
        }
        let write = try fixture.open()
        fixture.send("POST", "/transactions/\(write)", json: #"{"sql": "UPDATE c SET n = 3"}"#)
        let writeAnswer = fixture.send(
            "POST",
            "/transactions/\(write)",
            json: #"{"sql": "\#(slow) INSERT INTO c(n) SELECT i FROM r", "timeout_ms": 200}"#
        )
        #expect(fixture.code(writeAnswer) == "TIMEOUT")
        if try errorObject(writeAnswer)?["transaction_open"] == .bool(false) {
            #expect(try errorObject(writeAnswer)?["rolled_back"] == .bool(true))
            #expect(fixture.send("POST", "/transactions/\(write)/commit").status.code == 404)
            #expect(try fixture.counter() == 0)
        } else {
            #expect(fixture.send("POST", "/transactions/\(write)/commit").status.code == 200)
            #expect(try fixture.counter() == 3)
        }
        #expect(fixture.send("POST", "/update", json: #"{"sql": "UPDATE c SET n = 4"}"#).status.code == 200)
    }
}
