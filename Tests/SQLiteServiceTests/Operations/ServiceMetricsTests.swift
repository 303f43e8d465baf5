import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// GET /metrics and what the service records into ServiceMetrics.
@Suite struct ServiceMetricsTests {
    /// Checks that requests are counted per endpoint and status, with a latency histogram for each series, and
    /// that unknown paths share one `other` label.
    @Test func metrics_countRequestsPerEndpointAndStatus() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/query", json: #"{"sql": "SELECT * FROM t"}"#)
        fixture.send("POST", "/query", json: #"{"sql": "SELECT * FROM t"}"#)
        fixture.send("POST", "/query", json: #"{"sql": "SELECT * FROM nowhere"}"#)
        fixture.send("GET", "/schema/t")
        fixture.send("GET", "/no/such/path")
        fixture.send("GET", "/another/made/up/path")

        let text = try fixture.metricsText()

        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/update",status="200",protocol="http/1.1"}"#, in: text) == 1
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="200",protocol="http/1.1"}"#, in: text) == 2
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="400",protocol="http/1.1"}"#, in: text) == 1
        )
        #expect(
            sample(
                #"sqlited_http_requests_total{endpoint="/schema/{table}",status="200",protocol="http/1.1"}"#,
                in: text
            ) == 1
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="other",status="404",protocol="http/1.1"}"#, in: text) == 2
        )
        #expect(
            sample(
                #"sqlited_http_request_duration_seconds_count{endpoint="/query",status="200",protocol="http/1.1"}"#,
                in: text
            ) == 2
        )
        #expect(
            sample(
                #"sqlited_http_request_duration_seconds_bucket{endpoint="/query",status="200",protocol="http/1.1",le="+Inf"}"#,
                in: text
            )
                == 2
        )
        #expect(text.contains("# TYPE sqlited_http_request_duration_seconds histogram"))
        #expect(!text.contains("/no/such/path"))
    }

    /// Checks the response's status and Prometheus content type, and that HEAD and POST are handled as for other GET
    /// endpoints.
    @Test func metrics_answerPrometheusText() throws {
        let fixture = try ServiceFixture()
        let response = fixture.send("GET", "/metrics")
        #expect(response.status.code == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(fixture.send("POST", "/metrics", json: "{}").status.code == 405)
    }

    /// Checks that without metrics the endpoint answers 404 NOT_FOUND.
    @Test func metrics_absentWhenNotConfigured() throws {
        let fixture = try ServiceFixture(withMetrics: false)
        let response = fixture.send("GET", "/metrics")
        #expect(response.status.code == 404)
        guard case .object(let error)? = try bodyObject(response)["error"] else {
            Issue.record("no error object")
            return
        }
        #expect(error["code"] == .string("NOT_FOUND"))
    }

    /// Checks that a statement prepared again is counted as a statement cache hit, the first time as a miss.
    @Test func metrics_countStatementCacheHitsAndMisses() throws {
        let fixture = try ServiceFixture(readers: 1)
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        let before = try fixture.metricsText()
        let hitsBefore = sample("sqlited_statement_cache_hits_total", in: before) ?? 0
        let missesBefore = sample("sqlited_statement_cache_misses_total", in: before) ?? 0

        for _ in 0..<3 {
            #expect(fixture.send("POST", "/query", json: #"{"sql": "SELECT count(*) FROM t"}"#).status.code == 200)
        }

        let after = try fixture.metricsText()
        #expect((sample("sqlited_statement_cache_misses_total", in: after) ?? 0) - missesBefore == 1)
        #expect((sample("sqlited_statement_cache_hits_total", in: after) ?? 0) - hitsBefore == 2)
    }

    /// Checks that the file size gauges report the database and WAL files' sizes as stat(2) sees them.
    @Test func metrics_reportDatabaseAndWALSizes() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (randomblob(100000))"}"#)

        let text = try fixture.metricsText()

        let path = fixture.path("app.sqlite")
        let databaseSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        let walSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        #expect((walSize ?? 0) > 100_000)
        #expect(sample("sqlited_database_size_bytes", in: text) == databaseSize.map(Double.init))
        #expect(sample("sqlited_wal_size_bytes", in: text) == walSize.map(Double.init))
    }

    /// Checks that the open connections gauge reads the provider at each render.
    @Test func metrics_reportOpenConnectionsFromProvider() throws {
        let fixture = try ServiceFixture()
        let metrics = try #require(fixture.service.options.metrics)
        #expect(sample("sqlited_http_open_connections", in: try fixture.metricsText()) == 0)
        let count = Counter()
        metrics.setOpenConnectionsProvider { count.next() }
        #expect(sample("sqlited_http_open_connections", in: try fixture.metricsText()) == 1)
        #expect(sample("sqlited_http_open_connections", in: try fixture.metricsText()) == 2)
    }

    /// Checks that requests failing with SQLITE_BUSY are counted, whether the endpoint threw (`/update`) or wrote
    /// the error into its own body (`/batch`).
    @Test func metrics_countBusyErrors() throws {
        let fixture = try ServiceFixture(busyTimeout: .milliseconds(1))
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(x)"}"#)
        // Another connection holds the write lock, so the service's writer gets SQLITE_BUSY.
        let other = try Database(path: fixture.path("app.sqlite"))
        try other.execute(sql: "BEGIN IMMEDIATE")

        let update = fixture.send("POST", "/update", json: #"{"sql": "INSERT INTO t VALUES (1)"}"#)
        let batch = fixture.send("POST", "/batch", json: #"{"statements": [{"sql": "INSERT INTO t VALUES (1)"}]}"#)
        try other.rollback()
        try other.close()

        #expect(update.status.code == 503)
        #expect(batch.status.code == 503)
        let text = try fixture.metricsText()
        #expect(sample("sqlited_sqlite_busy_errors_total", in: text) == 2)
        #expect(sample("sqlited_sqlite_locked_errors_total", in: text) == 0)
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/batch",status="503",protocol="http/1.1"}"#, in: text) == 1
        )
    }

    /// Checks which error codes count as busy and as locked.
    @Test func recordFailure_classifiesBusyAndLockedCodes() {
        let metrics = ServiceMetrics(databasePath: "/nonexistent/db.sqlite")
        for code in ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED_SHAREDCACHE", "UNAVAILABLE", "SQLITE_ERROR"]
        {
            metrics.recordFailure(code: code)
        }
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(sample("sqlited_sqlite_busy_errors_total", in: text) == 2)
        #expect(sample("sqlited_sqlite_locked_errors_total", in: text) == 1)
        #expect(sample("sqlited_database_size_bytes", in: text) == 0)
    }

    /// Checks that two ServiceMetrics keep separate figures (no process-wide registry).
    @Test func metrics_areIndependentPerInstance() {
        let first = ServiceMetrics(databasePath: "/nonexistent/a.sqlite")
        let second = ServiceMetrics(databasePath: "/nonexistent/b.sqlite")
        first.recordRequest(endpoint: .query, status: 200, nanoseconds: 3_000_000)
        let text = String(decoding: second.render(), as: UTF8.self)
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="200",protocol="http/1.1"}"#, in: text) == nil
        )
        let firstText = String(decoding: first.render(), as: UTF8.self)
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="200",protocol="http/1.1"}"#, in: firstText)
                == 1
        )
    }

    /// A thread-safe counter for the provider closure.
    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1
                return $0
            }
        }
    }
}
