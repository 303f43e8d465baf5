import Dispatch
import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// The `Idempotency-Key` header on the local storage (API.md, "Safe retries"), through the service's handler.
@Suite struct IdempotencyTests {
    private static let insert = #"{"sql": "INSERT INTO t(x) VALUES (1) RETURNING id"}"#

    private static func fixture(options: ServiceOptions = ServiceOptions()) throws -> ServiceFixture {
        let fixture = try ServiceFixture(options: options)
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, x NOT NULL)"}"#)
        return fixture
    }

    /// Checks that the first request with a key runs, and that the same request again is answered with the same
    /// status and body, byte for byte, with `Idempotent-Replayed: true`, without running again.
    @Test func sameRequestAgain_isReplayedByteForByte() throws {
        let fixture = try Self.fixture()
        let first = fixture.send("POST", "/update", json: Self.insert, key: "k-1")
        #expect(first.status.code == 200)
        #expect(replayed(first) == nil)
        let again = fixture.send("POST", "/update", json: Self.insert, key: "k-1")
        #expect(again.status.code == 200)
        #expect(replayed(again) == "true")
        #expect(try bodyBytes(again) == bodyBytes(first))
        #expect(try fixture.count("t") == 1)
        #expect(try fixture.count(IdempotentWrite.table) == 1)
        #expect(sample("sqlited_idempotency_replays_total", in: try fixture.metricsText()) == 1)
    }

    /// Checks that a key stored for one request is 422 `IDEMPOTENCY_KEY_REUSED` for another body, target or method,
    /// and that nothing runs then; key names are case-sensitive.
    @Test func keyReusedForAnotherRequest_is422() throws {
        let fixture = try Self.fixture()
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "k").status.code == 200)
        // The same JSON with other whitespace is another body.
        let otherBody = fixture.send(
            "POST",
            "/update",
            json: Self.insert.replacingOccurrences(of: ": ", with: ":"),
            key: "k"
        )
        #expect(otherBody.status.code == 422)
        #expect(try errorObject(otherBody)?["code"] == .string("IDEMPOTENCY_KEY_REUSED"))
        let otherTarget = fixture.send("POST", "/batch", json: #"{"statements": [\#(Self.insert)]}"#, key: "k")
        #expect(otherTarget.status.code == 422)
        let otherQuery = fixture.send("POST", "/update?x=1", json: Self.insert, key: "k")
        #expect(otherQuery.status.code == 422)
        #expect(try fixture.count("t") == 1)
        // Another case is another key.
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "K").status.code == 200)
        #expect(try fixture.count("t") == 2)
        let text = try fixture.metricsText()
        #expect(sample(#"sqlited_idempotency_conflicts_total{code="IDEMPOTENCY_KEY_REUSED"}"#, in: text) == 3)
    }

    /// Checks that a request that fails and keeps nothing stores nothing: the key stays free for a retry.
    @Test func failedFirstRequest_leavesTheKeyFree() throws {
        let fixture = try Self.fixture()
        let body = #"{"sql": "INSERT INTO u VALUES (1)"}"#
        let failed = fixture.send("POST", "/update", json: body, key: "k")
        #expect(failed.status.code == 400)
        #expect(try fixture.count(IdempotentWrite.table) == 0)
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE u(x)"}"#)
        let retried = fixture.send("POST", "/update", json: body, key: "k")
        #expect(retried.status.code == 200)
        #expect(replayed(retried) == nil)
        // A /transaction rolled back whole keeps nothing either.
        let transaction =
            #"{"statements": [{"sql": "INSERT INTO u VALUES (2)"}, {"sql": "INSERT INTO nowhere VALUES (1)"}]}"#
        #expect(fixture.send("POST", "/transaction", json: transaction, key: "tx").status.code == 400)
        #expect(try fixture.count("u") == 1)
        #expect(try fixture.count(IdempotentWrite.table) == 1)
    }

    /// Checks that a keyed `/batch` that stops after some statements stayed stores its failure (its earlier
    /// statements are kept) and replays it, while one that stops at its first statement keeps the key free.
    @Test func batchThatStoppedAfterChanges_storesItsFailure() throws {
        let fixture = try Self.fixture()
        let batch =
            #"{"statements": [{"sql": "INSERT INTO t(x) VALUES (1)"}, {"sql": "INSERT INTO t(x) VALUES (NULL)"}, {"sql": "INSERT INTO t(x) VALUES (3)"}]}"#
        let unkeyed = try Self.fixture().send("POST", "/batch", json: batch)
        let first = fixture.send("POST", "/batch", json: batch, key: "b")
        #expect(first.status.code == 409)
        // The answer is the same as without a key.
        #expect(try bodyBytes(first) == bodyBytes(unkeyed))
        #expect(try fixture.count("t") == 1)
        let again = fixture.send("POST", "/batch", json: batch, key: "b")
        #expect(replayed(again) == "true")
        #expect(again.status.code == 409)
        #expect(try bodyBytes(again) == bodyBytes(first))
        #expect(try fixture.count("t") == 1)

        let stopsAtOnce = #"{"statements": [{"sql": "INSERT INTO t(x) VALUES (NULL)"}]}"#
        #expect(fixture.send("POST", "/batch", json: stopsAtOnce, key: "c").status.code == 409)
        #expect(try fixture.count(IdempotentWrite.table) == 1)
    }

    /// Checks that a malformed key is 400 `INVALID_REQUEST` on every write (nothing written), and ignored on
    /// requests that do not write.
    @Test(arguments: ["", String(repeating: "a", count: 256), "with space", "é", "tab\tkey"])
    func malformedKey_is400OnWritesAndIgnoredElsewhere(key: String) throws {
        let fixture = try Self.fixture()
        let update = fixture.send("POST", "/update", json: Self.insert, key: key)
        #expect(update.status.code == 400)
        #expect(try errorObject(update)?["code"] == .string("INVALID_REQUEST"))
        let rows = fixture.send("POST", "/tables/t/rows", json: #"{"rows": [{"x": 1}]}"#, key: key)
        #expect(rows.status.code == 400)
        #expect(try fixture.count("t") == 0)
        #expect(fixture.send("POST", "/query", json: #"{"sql": "SELECT 1"}"#, key: key).status.code == 200)
        #expect(fixture.send("GET", "/tables/t/rows", json: nil, key: key).status.code == 200)
        #expect(fixture.send("GET", "/schema", json: nil, key: key).status.code == 200)
    }

    /// Checks that a key sent in two fields is 400 `INVALID_REQUEST` (nothing written), even when both are the same.
    @Test func keyInTwoFields_is400() throws {
        let fixture = try Self.fixture()
        var request = ServiceFixture.request("POST", "/update", json: Self.insert, key: "k")
        request.headers.add(name: "idempotency-key", value: "k")
        let response = fixture.service.handle(request)
        #expect(response.status.code == 400)
        #expect(try errorObject(response)?["code"] == .string("INVALID_REQUEST"))
        #expect(try fixture.count("t") == 0)
    }

    /// Checks the longest key (255 characters) and every visible ASCII character are accepted.
    @Test func longestAndWidestKeys_areAccepted() throws {
        let fixture = try Self.fixture()
        let widest = String((0x21...0x7E).map { Character(UnicodeScalar(UInt8($0))) })
        for key in [String(repeating: "z", count: 255), widest] {
            #expect(fixture.send("POST", "/update", json: Self.insert, key: key).status.code == 200)
        }
        #expect(try fixture.count("t") == 2)
    }

    /// Checks that the same request while the first one runs is 409 `IDEMPOTENCY_IN_PROGRESS` with `Retry-After`,
    /// another request under the key 422, and that the first one then runs once.
    @Test func sameKeyWhileRunning_is409() throws {
        let fixture = try Self.fixture()
        let release = fixture.holdWriter()
        let service = fixture.service
        let first = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let response = service.handle(ServiceFixture.request("POST", "/update", json: Self.insert, key: "run"))
            first.withLock { $0 = response }
            done.signal()
        }.start()
        while service.groupCommitter.queuedCount < 1 { usleep(1000) }
        let second = fixture.send("POST", "/update", json: Self.insert, key: "run")
        #expect(second.status.code == 409)
        #expect(second.headers.values(for: "Retry-After") == ["1"])
        #expect(try errorObject(second)?["code"] == .string("IDEMPOTENCY_IN_PROGRESS"))
        let other = fixture.send("POST", "/update", json: #"{"sql": "DELETE FROM t"}"#, key: "run")
        #expect(other.status.code == 422)
        release()
        done.wait()
        #expect(first.withLock { $0?.status.code } == 200)
        #expect(try fixture.count("t") == 1)
        #expect(service.idempotencyRunning.count == 0)
        let replay = fixture.send("POST", "/update", json: Self.insert, key: "run")
        #expect(replayed(replay) == "true")
    }

    /// Checks that many clients sending one keyed request at once never make it run twice: each gets the answer,
    /// 409, or the replay, and the row exists once.
    @Test func sameKeyFromManyClientsAtOnce_runsOnce() throws {
        let fixture = try Self.fixture()
        let service = fixture.service
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<16 {
            group.enter()
            Thread {
                let response = service.handle(ServiceFixture.request("POST", "/update", json: Self.insert, key: "race"))
                statuses.withLock { $0.append(response.status.code) }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(statuses.withLock { $0.allSatisfy { $0 == 200 || $0 == 409 } })
        #expect(try fixture.count("t") == 1)
    }

    /// Checks keyed requests queued in one group: each runs in its own savepoint with its own key row, a failing
    /// one stores nothing, and duplicates within the group are 409.
    @Test func keyedRequestsInOneGroup_eachKeepTheirOwnKey() throws {
        let fixture = try Self.fixture()
        let release = fixture.holdWriter()
        let service = fixture.service
        let group = DispatchGroup()
        let statuses = Mutex<[String: Int]>([:])
        let requests = [
            ("a", Self.insert), ("b", Self.insert), ("bad", #"{"sql": "INSERT INTO t(x) VALUES (NULL)"}"#),
            ("c", #"{"sql": "INSERT INTO t(x) VALUES (2)"}"#),
        ]
        for (key, body) in requests {
            group.enter()
            Thread {
                let response = service.handle(ServiceFixture.request("POST", "/update", json: body, key: key))
                statuses.withLock { $0[key] = response.status.code }
                group.leave()
            }.start()
        }
        while service.groupCommitter.queuedCount < requests.count { usleep(1000) }
        release()
        group.wait()
        #expect(statuses.withLock { $0 } == ["a": 200, "b": 200, "bad": 409, "c": 200])
        #expect(try fixture.count("t") == 3)
        #expect(try fixture.count(IdempotentWrite.table) == 3)
    }

    /// Checks that keys are scoped per token: the same key under two tokens is two keys.
    @Test func anotherTokensKey_doesNotCollide() throws {
        let fixture = try Self.fixture()
        fixture.service.setTokens(
            try TokenStore(entries: [
                TokenStore.Entry(name: "one", sha256Hex: TokenStore.sha256Hex(of: "token-one"), role: .write),
                TokenStore.Entry(name: "two", sha256Hex: TokenStore.sha256Hex(of: "token-two"), role: .write),
            ])
        )
        let one = fixture.send("POST", "/update", json: Self.insert, key: "shared", token: "token-one")
        let two = fixture.send("POST", "/update", json: #"{"sql": "DELETE FROM t"}"#, key: "shared", token: "token-two")
        #expect(one.status.code == 200)
        #expect(two.status.code == 200)
        #expect(replayed(two) == nil)
        let again = fixture.send("POST", "/update", json: Self.insert, key: "shared", token: "token-one")
        #expect(replayed(again) == "true")
        #expect(try fixture.count(IdempotentWrite.table) == 2)
    }

    /// Checks that a key is forgotten after `idempotency.retention` seconds: the request runs again (its expired
    /// row replaced), and an expiry pass deletes the other expired row and counts the one left.
    @Test func expiredKey_isForgotten() throws {
        var options = ServiceOptions()
        options.idempotencyRetention = .seconds(1)
        let fixture = try Self.fixture(options: options)
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "old").status.code == 200)
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "other").status.code == 200)
        Thread.sleep(forTimeInterval: 2.1)
        let again = fixture.send("POST", "/update", json: #"{"sql": "DELETE FROM t"}"#, key: "old")
        #expect(again.status.code == 200)
        #expect(replayed(again) == nil)
        #expect(try fixture.count("t") == 0)
        #expect(try fixture.count(IdempotentWrite.table) == 2)
        try fixture.service.expireIdempotencyKeys()
        #expect(try fixture.count(IdempotentWrite.table) == 1)
        #expect(sample("sqlited_idempotency_keys_stored", in: try fixture.metricsText()) == 1)
    }

    /// Checks that an expiry pass walks a table larger than one step (``IdempotentWrite/sweepChunk``) to its end:
    /// every expired key goes, across the steps' boundaries and in every scope, every fresh one stays, and the
    /// gauge counts those left.
    @Test func expiryPass_deletesExpiredKeysAcrossSteps() throws {
        let fixture = try Self.fixture()
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "makes-the-table").status.code == 200)
        let now = Int64(Date().timeIntervalSince1970)
        let old = now - 2 * 86_400
        let db = try Database(path: fixture.path("app.sqlite"))
        let insert =
            "INSERT INTO \(IdempotentWrite.table)(scope, key, request, body_sha256, status, response, created) "
            + "VALUES (?, ?, 'POST /update', x'00', 200, x'7b7d', ?)"
        let total = 3 * IdempotentWrite.sweepChunk + 7
        var fresh = 1  // the key sent above
        try db.transaction(.immediate) { db in
            for index in 0..<total {
                // Interleaved: each step meets expired and fresh keys, in two scopes.
                let expired = index % 3 != 0
                if !expired { fresh += 1 }
                try db.execute(
                    sql: insert,
                    arguments: .positional([
                        .text(index % 2 == 0 ? "" : "token-one"), .text(String(format: "k%05d", index)),
                        .integer(expired ? old : now),
                    ])
                )
            }
        }
        try db.close()
        try fixture.service.expireIdempotencyKeys()
        #expect(try fixture.count(IdempotentWrite.table) == Int64(fresh))
        #expect(sample("sqlited_idempotency_keys_stored", in: try fixture.metricsText()) == Double(fresh))
    }

    /// Checks that the background scheduler deletes expired keys with no keyed write coming, and sets the gauge.
    @Test func expiryScheduler_deletesExpiredKeysInTheBackground() throws {
        var options = ServiceOptions()
        options.idempotencyRetention = .seconds(1)
        let fixture = try Self.fixture(options: options)
        for key in ["a", "b", "c"] {
            #expect(fixture.send("POST", "/update", json: Self.insert, key: key).status.code == 200)
        }
        #expect(try fixture.count(IdempotentWrite.table) == 3)
        let scheduler = IdempotencyExpiryScheduler(service: fixture.service, logger: .init(label: "test"))
        scheduler.start()
        defer { scheduler.stop() }
        let deadline = Date().addingTimeInterval(10)
        while try fixture.count(IdempotentWrite.table) > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try fixture.count(IdempotentWrite.table) == 0)
        #expect(try fixture.count("t") == 3)
        #expect(sample("sqlited_idempotency_keys_stored", in: try fixture.metricsText()) == 0)
    }

    /// Checks that the server's table is hidden from clients: not in `/schema` or `/tables`, and their SQL can
    /// neither read nor write it.
    @Test func serverTable_isHiddenFromClients() throws {
        let fixture = try Self.fixture()
        fixture.send("POST", "/update", json: Self.insert, key: "k")
        let schema = String(decoding: try bodyBytes(fixture.send("GET", "/schema")), as: UTF8.self)
        #expect(!schema.contains("_sqlited_"))
        let tables = String(decoding: try bodyBytes(fixture.send("GET", "/tables")), as: UTF8.self)
        #expect(!tables.contains("_sqlited_"))
        #expect(fixture.send("GET", "/tables/_sqlited_idempotency/rows").status.code == 404)
        for (path, sql) in [
            ("/query", "SELECT * FROM _sqlited_idempotency"),
            ("/update", "DELETE FROM _sqlited_idempotency"),
            ("/update", "DROP TABLE _sqlited_idempotency"),
        ] {
            let response = fixture.send("POST", path, json: #"{"sql": "\#(sql)"}"#)
            #expect(response.status.code == 403, "\(sql)")
        }
        // The exact text of the server's own statement is refused too (never lent from a statement cache).
        let lookup =
            "SELECT request, body_sha256, status, response, created FROM _sqlited_idempotency WHERE scope = ? AND key = ?"
        let response = fixture.send("POST", "/update", json: #"{"sql": "\#(lookup)", "params": ["", "k"]}"#)
        #expect(response.status.code == 403)
        #expect(try fixture.count(IdempotentWrite.table) == 1)
    }

    /// Checks that a backup carries the stored keys (they are in the database).
    @Test func backup_carriesTheKeys() throws {
        let fixture = try Self.fixture()
        var options = fixture.service.options
        options.backupDirectory = fixture.path("backups")
        fixture.service.setOptions(options)
        fixture.send("POST", "/update", json: Self.insert, key: "kept")
        let backup = fixture.send("POST", "/backup")
        #expect(backup.status.code == 200)
        guard case .string(let file)? = try bodyObject(backup)["file"] else {
            Issue.record("no file in the backup's answer")
            return
        }
        #expect(try fixture.count(IdempotentWrite.table, in: fixture.path("backups/\(file)")) == 1)
    }

    /// Checks the other write endpoints: `/transaction`, `/batch` and the Tables API's writes replay too.
    @Test func everyWriteEndpoint_replays() throws {
        let fixture = try Self.fixture()
        let writes: [(String, String, String?)] = [
            ("POST", "/transaction", #"{"statements": [{"sql": "INSERT INTO t(x) VALUES (1)"}]}"#),
            ("POST", "/batch", #"{"script": "INSERT INTO t(x) VALUES (2); INSERT INTO t(x) VALUES (3);"}"#),
            ("POST", "/tables/t/rows", #"{"rows": [{"x": 4}]}"#),
            ("PATCH", "/tables/t/rows/1", #"{"x": 5}"#),
            ("DELETE", "/tables/t/rows/2", nil),
        ]
        for (index, (method, target, json)) in writes.enumerated() {
            let first = fixture.send(method, target, json: json, key: "w\(index)")
            #expect(first.status.code == 200, "\(method) \(target)")
            let again = fixture.send(method, target, json: json, key: "w\(index)")
            #expect(replayed(again) == "true", "\(method) \(target)")
            #expect(try bodyBytes(again) == bodyBytes(first))
        }
        #expect(try fixture.count("t") == 3)
    }

    /// Checks that with group commit off (autocommit writes) a key is stored and replayed alike.
    @Test func groupCommitOff_storesAndReplays() throws {
        var options = ServiceOptions()
        options.groupCommit.isEnabled = false
        let fixture = try Self.fixture(options: options)
        let batch =
            #"{"statements": [{"sql": "INSERT INTO t(x) VALUES (1)"}, {"sql": "INSERT INTO t(x) VALUES (NULL)"}]}"#
        #expect(fixture.send("POST", "/batch", json: batch, key: "b").status.code == 409)
        #expect(replayed(fixture.send("POST", "/batch", json: batch, key: "b")) == "true")
        #expect(fixture.send("POST", "/update", json: Self.insert, key: "u").status.code == 200)
        #expect(replayed(fixture.send("POST", "/update", json: Self.insert, key: "u")) == "true")
        #expect(try fixture.count("t") == 2)
    }
}
