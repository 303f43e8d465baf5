import Foundation
import Logging
import SQLiteEngine
import Testing

@testable import SQLiteService

/// MaintenanceScheduler: the automatic truncate checkpoint past the WAL size limit, and PRAGMA optimize.
@Suite struct MaintenanceSchedulerTests {
    private func walSize(_ fixture: ServiceFixture) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: fixture.pool.path + "-wal")[.size] as? Int) ?? 0
    }

    private func scheduler(
        _ fixture: ServiceFixture,
        walSizeLimit: Int64,
        optimizeInterval: Duration = .zero
    )
        -> MaintenanceScheduler
    {
        var schedule = MaintenanceSchedule()
        schedule.walSizeLimit = walSizeLimit
        schedule.optimizeInterval = optimizeInterval
        schedule.checkpointWait = .milliseconds(20)
        return MaintenanceScheduler(
            pool: fixture.pool,
            schedule: schedule,
            metrics: fixture.service.options.metrics,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    private func fill(_ fixture: ServiceFixture) {
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, pad BLOB)"}"#)
        fixture.send(
            "POST",
            "/update",
            json:
                #"{"sql": "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 300) INSERT INTO t SELECT i, randomblob(1000) FROM s"}"#
        )
    }

    /// Checks that a WAL past the limit is checkpointed and truncated, and one under it is left alone.
    @Test func walPastTheLimit_isTruncated() throws {
        let fixture = try ServiceFixture()
        fill(fixture)
        let before = walSize(fixture)
        #expect(before > 100_000)

        scheduler(fixture, walSizeLimit: Int64(before) * 2).tick()
        #expect(walSize(fixture) == before)

        scheduler(fixture, walSizeLimit: 100_000).tick()
        #expect(walSize(fixture) == 0)
        #expect(
            fixture.service.options.metrics?.renderText().contains(
                #"sqlited_checkpoints_total{trigger="automatic",result="ok"} 1"#
            ) == true
        )
        #expect(try fixture.pool.read { db throws in try db.int64(sql: "SELECT count(*) FROM t") } == 300)
    }

    /// Checks that a reader on an older snapshot makes the checkpoint busy (counted), that the next check does
    /// not try again at once, and that writes go on meanwhile.
    @Test func readerInTheWay_isCountedAndRetriedLater() throws {
        let fixture = try ServiceFixture()
        fill(fixture)
        let scheduler = scheduler(fixture, walSizeLimit: 1)
        try fixture.pool.read { db throws in
            #expect(try db.int64(sql: "SELECT count(*) FROM t") == 300)
            fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t(pad) VALUES (x'01')"}"#)
            scheduler.tick()
            scheduler.tick()
        }
        let text = fixture.service.options.metrics?.renderText() ?? ""
        #expect(text.contains(#"sqlited_checkpoints_total{trigger="automatic",result="busy"} 1"#), "\(text)")
        #expect(text.contains(#"sqlited_checkpoints_total{trigger="automatic",result="ok"} 0"#), "\(text)")
        let insert = fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t(pad) VALUES (x'02')"}"#)
        #expect(insert.status.code == 200)
    }

    /// Checks that PRAGMA optimize runs when its interval has passed and before close.
    @Test func optimize_runsAtItsIntervalAndBeforeClose() throws {
        let fixture = try ServiceFixture()
        fill(fixture)
        let scheduler = scheduler(fixture, walSizeLimit: 0, optimizeInterval: .milliseconds(1))
        scheduler.start()
        scheduler.stop()
        Thread.sleep(forTimeInterval: 0.01)
        scheduler.tick()
        scheduler.optimizeBeforeClose()
        let text = fixture.service.options.metrics?.renderText() ?? ""
        #expect(text.contains(#"sqlited_optimize_total{trigger="interval"} 1"#), "\(text)")
        #expect(text.contains(#"sqlited_optimize_total{trigger="close"} 1"#), "\(text)")
        // The policy is back on the writer afterwards.
        #expect(fixture.send("POST", "/update", json: #"{"sql": "PRAGMA optimize"}"#).status.code == 403)
    }
}
