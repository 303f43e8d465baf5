import Foundation
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// POST /admin/vacuum, /admin/checkpoint and /admin/optimize.
@Suite struct MaintenanceEndpointTests {
    private func integer(_ object: JSONObject, _ key: String) -> Int64? {
        if case .integer(let value)? = object[key] { return value }
        return nil
    }

    /// Checks that VACUUM after deleting most rows answers a smaller size, that the file itself shrank (the
    /// checkpoint after it ran), and that the data is intact.
    @Test func vacuum_reclaimsSpaceAndKeepsData() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, pad BLOB)"}"#)
        fixture.send(
            "POST",
            "/update",
            json:
                #"{"sql": "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2000) INSERT INTO t SELECT i, randomblob(1000) FROM s"}"#
        )
        fixture.send("POST", "/update", json: #"{"sql": "DELETE FROM t WHERE id > 10"}"#)

        let response = fixture.send("POST", "/admin/vacuum")

        #expect(response.status.code == 200)
        let body = try bodyObject(response)
        #expect(body.keys == ["size_before", "size_after", "checkpoint"])
        let before = try #require(integer(body, "size_before"))
        let after = try #require(integer(body, "size_after"))
        #expect(before > 1_000_000)
        #expect(after < before / 10)
        guard case .object(let checkpoint)? = body["checkpoint"] else {
            Issue.record("no checkpoint in \(body)")
            return
        }
        #expect(checkpoint["mode"] == .string("truncate"))
        let fileSize = try FileManager.default.attributesOfItem(atPath: fixture.pool.path)[.size] as? Int
        #expect(fileSize.map(Int64.init) == after)
        let count = fixture.send("POST", "/query", json: #"{"sql": "SELECT count(*) AS n FROM t"}"#)
        #expect(count.bodyText.contains(#"{"n":10}"#))
    }

    /// Checks that a reader holding a snapshot does not stop VACUUM (nor make it wait), and still reads its own
    /// snapshot.
    @Test func vacuum_whileAReaderHoldsASnapshot() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1), (2), (3)"}"#)
        try fixture.pool.read { db throws in
            #expect(try db.int64(sql: "SELECT count(*) FROM t") == 3)
            let response = fixture.send("POST", "/admin/vacuum")
            #expect(response.status.code == 200)
            // The reader is in the way of a truncate checkpoint, which is not waited for: a passive one ran.
            #expect(response.bodyText.contains(#""checkpoint":{"mode":"passive""#))
            #expect(try db.int64(sql: "SELECT sum(x) FROM t") == 6)
        }
    }

    /// Checks every checkpoint mode and the default (passive).
    @Test(arguments: [
        ("passive", #"{"mode": "passive"}"#), ("full", #"{"mode": "full"}"#),
        ("restart", #"{"mode": "restart"}"#), ("truncate", #"{"mode": "truncate"}"#), ("passive", ""),
        ("passive", "{}"),
    ])
    func checkpoint_runsTheMode(mode: String, json: String) throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1)"}"#)

        let response = fixture.send("POST", "/admin/checkpoint", json: json)

        #expect(response.status.code == 200)
        let body = try bodyObject(response)
        #expect(body.keys == ["mode", "wal_frames", "checkpointed_frames"])
        #expect(body["mode"] == .string(mode))
        let frames = try #require(integer(body, "wal_frames"))
        let copied = try #require(integer(body, "checkpointed_frames"))
        #expect(copied <= frames)
        if mode == "truncate" { #expect(frames == 0) }
        #expect(
            fixture.service.options.metrics?.renderText().contains(
                #"sqlited_checkpoints_total{trigger="request",result="ok"} 1"#
            ) == true
        )
    }

    /// Checks that a truncate checkpoint that cannot wait out a reader's snapshot is 503 SQLITE_BUSY with
    /// Retry-After, and counted.
    @Test func checkpoint_blockedByAReader_isBusy() throws {
        let fixture = try ServiceFixture(busyTimeout: .milliseconds(50))
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        try fixture.pool.read { db throws in
            #expect(try db.int64(sql: "SELECT count(*) FROM t") == 0)
            fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1)"}"#)
            let response = fixture.send("POST", "/admin/checkpoint", json: #"{"mode": "truncate"}"#)
            #expect(response.status.code == 503)
            #expect(response.errorCode?.hasPrefix("SQLITE_BUSY") == true)
            #expect(response.headers["Retry-After"] != nil)
        }
        #expect(
            fixture.service.options.metrics?.renderText().contains(
                #"sqlited_checkpoints_total{trigger="request",result="busy"} 1"#
            ) == true
        )
    }

    /// Checks PRAGMA optimize, with and without ANALYZE (which fills sqlite_stat1).
    @Test func optimize_withAndWithoutAnalyze() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "CREATE INDEX t_x ON t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1), (2)"}"#)

        let plain = fixture.send("POST", "/admin/optimize")
        #expect(plain.status.code == 200)
        #expect(plain.bodyText == #"{"analyzed":false}"#)

        let analyzed = fixture.send("POST", "/admin/optimize", json: #"{"analyze": true}"#)
        #expect(analyzed.status.code == 200)
        #expect(analyzed.bodyText == #"{"analyzed":true}"#)
        let stats = try fixture.pool.read { db in try db.int64(sql: "SELECT count(*) FROM sqlite_stat1") }
        #expect((stats ?? 0) > 0)
    }

    /// Checks that the policy is back on the writer after maintenance: clients still cannot VACUUM.
    @Test func clientSQL_stillCannotVacuumAfterMaintenance() throws {
        let fixture = try ServiceFixture()
        #expect(fixture.send("POST", "/admin/vacuum").status.code == 200)
        #expect(fixture.send("POST", "/admin/optimize").status.code == 200)
        let vacuum = fixture.send("POST", "/update", json: #"{"sql": "VACUUM"}"#)
        #expect(vacuum.status.code == 403)
        let optimize = fixture.send("POST", "/update", json: #"{"sql": "PRAGMA optimize"}"#)
        #expect(optimize.status.code == 403)
    }

    /// Checks the bad inputs: wrong method, unknown keys, bad values, broken JSON, unknown operation.
    @Test(
        arguments: [
            ("GET", "/admin/vacuum", nil, 405, "METHOD_NOT_ALLOWED"),
            ("POST", "/admin/vacuum", #"{"full": true}"#, 400, "INVALID_REQUEST"),
            ("POST", "/admin/checkpoint", #"{"mode": "everything"}"#, 400, "INVALID_REQUEST"),
            ("POST", "/admin/checkpoint", #"{"mode": 1}"#, 400, "INVALID_REQUEST"),
            ("POST", "/admin/optimize", #"{"analyze": "yes"}"#, 400, "INVALID_REQUEST"),
            ("POST", "/admin/optimize", #"{"analyze": tru"#, 400, "INVALID_JSON"),
            ("POST", "/admin/optimize", "[]", 400, "INVALID_REQUEST"),
            ("POST", "/admin/reindex", "{}", 404, "NOT_FOUND"),
        ] as [(String, String, String?, Int, String)]
    )
    func badRequests_getTheirErrors(method: String, path: String, json: String?, status: Int, code: String) throws {
        let fixture = try ServiceFixture()
        let response = fixture.send(method, path, json: json)
        #expect(Int(response.status.code) == status)
        #expect(response.errorCode == code)
    }
}

extension ServiceMetrics {
    /// The Prometheus exposition as text.
    func renderText() -> String {
        String(decoding: render(), as: UTF8.self)
    }
}

/// The maintenance endpoints need the admin role.
@Test func maintenanceEndpoints_needTheAdminRole() {
    for path in ["/admin/vacuum", "/admin/checkpoint", "/admin/optimize", "/admin/unknown"] {
        #expect(SQLiteService.requiredRole(forPath: path) == .admin)
    }
}
