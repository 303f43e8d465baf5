import Dispatch
import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// SQLiteService.handleOnEventLoop: what is answered on the event loop, what is handed to handle(), and that both
/// paths give the same bytes and record each request once.
@Suite struct EventLoopTests {
    /// A recursive CTE that runs far longer than the event loop budget (2 ms) and far shorter than the statement
    /// time limit (5 s): 0.4 s in the sqlite3 shell on a slow machine, where the suite's 8 tests take 0.6 s in all.
    /// (Five million rows took over 5 s on a machine three times slower than the one the test was written on, and
    /// the test failed on the time limit it does not test.)
    static let longQuery = #"""
        {"sql": "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 500000) SELECT count(*) FROM c"}
        """#

    static func request(
        _ method: String,
        _ target: String,
        json: String? = nil,
        headers extra: [(String, String)] = []
    ) -> HTTPRequest {
        var headers = HTTPHeaders()
        if json != nil {
            headers.add(name: "Content-Type", value: "application/json")
        }
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array((json ?? "").utf8))
    }

    /// A fixture with table `t(id INTEGER PRIMARY KEY, v)` holding 100 rows.
    static func seededFixture(
        withMetrics: Bool = true,
        readers: Int = 2,
        readerWaitTimeout: Duration = .seconds(5)
    ) throws -> ServiceFixture {
        let fixture = try ServiceFixture(
            withMetrics: withMetrics,
            readers: readers,
            readerWaitTimeout: readerWaitTimeout
        )
        try fixture.pool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
            try db.execute(
                sql: """
                    WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100)
                    INSERT INTO t SELECT n, 'value ' || n FROM c
                    """
            )
        }
        return fixture
    }

    /// Status, header fields and body bytes of a response, for comparison.
    static func wire(_ response: HTTPResponse) throws -> String {
        let headers = response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        return "\(response.status.code)\n\(headers)\n\n" + String(decoding: try bodyBytes(response), as: UTF8.self)
    }

    /// The first row of a result in the default object shape.
    static func firstRow(_ response: HTTPResponse) throws -> JSONObject {
        guard case .array(let rows)? = try bodyObject(response)["rows"], case .object(let row)? = rows.first else {
            throw FixtureError("no rows in the response")
        }
        return row
    }

    /// The request log lines written so far.
    static func requestLines(_ fixture: ServiceFixture) -> [LogCapture.Record] {
        fixture.logs.records.filter { $0.message == "request" }
    }

    /// Checks that requests answered on the event loop give exactly the bytes handle() gives, for results and
    /// for every kind of error answered there.
    @Test func onEventLoop_answersWithTheBytesOfHandle() throws {
        let fixture = try Self.seededFixture()
        let requests = [
            Self.request("POST", "/query", json: #"{"sql": "SELECT * FROM t WHERE id = ?", "params": [42]}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT id, v FROM t WHERE id < 5", "shape": "arrays"}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT * FROM t", "max_rows": 3}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT ?", "params_batch": [[1], [2]]}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELEC 1"}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT * FROM nowhere"}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT ?", "params": []}"#),
            Self.request("POST", "/query", json: #"{"sql": "DELETE FROM t"}"#),
            Self.request("POST", "/query", json: #"{"sql": "BEGIN"}"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT 1; SELECT 2"}"#),
            Self.request("POST", "/query", json: #"{"sql": "ATTACH 'x.db' AS x"}"#),
            Self.request("POST", "/query", json: #"{"sql": 1"#),
            Self.request("POST", "/query", json: #"{"sql": "SELECT 1", "nope": 1}"#),
            Self.request("POST", "/query", headers: [("Content-Type", "text/plain")]),
            Self.request("GET", "/query"),
            Self.request("POST", "/update", headers: [("Content-Type", "text/plain")]),
            Self.request("DELETE", "/batch"),
            Self.request("GET", "/health"),
            Self.request("HEAD", "/health"),
            Self.request("POST", "/health", json: "{}"),
            Self.request("GET", "/schema"),
            Self.request("HEAD", "/schema"),
            Self.request("GET", "/schema/T"),
            Self.request("GET", "/schema/nowhere"),
            Self.request("GET", "/no/such/path"),
            Self.request("POST", "/metrics", json: "{}"),
            Self.request("GET", "/query?access_token=x"),
        ]
        for request in requests {
            let inline = try #require(
                fixture.service.handleOnEventLoop(request),
                "\(request.method) \(request.target) was not answered on the event loop"
            )
            let handled = fixture.service.handle(request)
            #expect(try Self.wire(inline) == Self.wire(handled), "\(request.method) \(request.target)")
        }
        #expect(fixture.pool.statistics.busyReaders == 0)
    }

    /// Checks that a query running past the budget is abandoned on the event loop (nil, nothing recorded) and
    /// then answered in full by handle().
    @Test func query_pastTheBudgetFallsBackToHandle() throws {
        let fixture = try Self.seededFixture()
        let request = Self.request("POST", "/query", json: Self.longQuery)
        #expect(fixture.service.handleOnEventLoop(request) == nil)
        #expect(Self.requestLines(fixture).isEmpty)
        #expect(fixture.pool.statistics.busyReaders == 0)

        let response = fixture.service.handle(request)
        #expect(response.status.code == 200)
        #expect(try Self.firstRow(response)["count(*)"] == .integer(500_000))
        #expect(Self.requestLines(fixture).count == 1)
    }

    /// Checks that a request whose own time limit is shorter than the budget gets its TIMEOUT on the event loop,
    /// the same answer handle() gives: the interrupt is the request's, not the budget's, so rerunning it would
    /// only run out of time again.
    @Test func query_timeoutBelowTheBudgetIsAnsweredOnTheEventLoop() throws {
        let fixture = try Self.seededFixture()
        let body = String(Self.longQuery.dropLast()) + #", "timeout_ms": 1}"#
        let request = Self.request("POST", "/query", json: body)
        let inline = try #require(fixture.service.handleOnEventLoop(request))
        #expect(inline.status.code == 400)
        guard case .object(let error)? = try bodyObject(inline)["error"] else {
            Issue.record("no error object")
            return
        }
        #expect(error["code"] == .string("TIMEOUT"))
        #expect(try Self.wire(inline) == Self.wire(fixture.service.handle(request)))
    }

    /// Checks that writes, backups and metrics are never run on the event loop, and that nothing was written.
    @Test func writesAndBackupsAndMetrics_areLeftToHandle() throws {
        let fixture = try Self.seededFixture()
        let requests = [
            Self.request("POST", "/update", json: #"{"sql": "CREATE TABLE u(x)"}"#),
            Self.request("POST", "/batch", json: #"{"statements": [{"sql": "CREATE TABLE u(x)"}]}"#),
            Self.request("POST", "/transaction", json: #"{"statements": [{"sql": "CREATE TABLE u(x)"}]}"#),
            Self.request("POST", "/backup", json: "{}"),
            Self.request("GET", "/metrics"),
        ]
        for request in requests {
            #expect(fixture.service.handleOnEventLoop(request) == nil, "\(request.target)")
        }
        #expect(try fixture.pool.read { db in try db.int64(sql: "SELECT count(*) FROM sqlite_schema") } == 1)
        #expect(Self.requestLines(fixture).isEmpty)
    }

    /// Checks that with every reader checked out the event loop gives up at once (a read would wait the hour the
    /// pool allows) and handle() answers once a reader is back.
    @Test func query_withEveryReaderBusyReturnsNilWithoutWaiting() throws {
        let fixture = try Self.seededFixture(readers: 2, readerWaitTimeout: .seconds(3600))
        let pool = fixture.pool
        let inside = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<2 {
            inside.enter()
            onNewThread(group: done) {
                _ = try? pool.read { _ in
                    inside.leave()
                    release.wait()
                }
            }
        }
        inside.wait()
        let query = Self.request("POST", "/query", json: #"{"sql": "SELECT v FROM t WHERE id = 7"}"#)
        #expect(fixture.service.handleOnEventLoop(query) == nil)
        #expect(fixture.service.handleOnEventLoop(Self.request("GET", "/schema")) == nil)
        #expect(fixture.service.handleOnEventLoop(Self.request("GET", "/schema/t")) == nil)
        // Needs no reader.
        #expect(fixture.service.handleOnEventLoop(Self.request("GET", "/health"))?.status.code == 200)
        #expect(pool.statistics == (2, 2))
        release.signal()
        release.signal()
        done.wait()

        let response = fixture.service.handle(query)
        #expect(try Self.firstRow(response)["v"] == .string("value 7"))
        #expect(Self.requestLines(fixture).map { $0.metadata["path"] } == ["/health", "/query"])
    }

    /// Checks that each request is counted and logged once whichever path answered it: on the event loop, given up
    /// there (budget, write) and answered by handle(), or an error on the event loop; statement cache lookups of an
    /// abandoned attempt are not counted.
    @Test func metricsAndLog_recordEachRequestOnce() throws {
        // One reader, so that the abandoned attempt and the rerun use the same connection.
        let fixture = try Self.seededFixture(readers: 1)
        let service = fixture.service
        let point = Self.request("POST", "/query", json: #"{"sql": "SELECT v FROM t WHERE id = 3"}"#)
        #expect(service.handleOnEventLoop(point)?.status.code == 200)

        let long = Self.request("POST", "/query", json: Self.longQuery)
        #expect(service.handleOnEventLoop(long) == nil)
        #expect(service.handle(long).status.code == 200)

        let write = Self.request("POST", "/update", json: #"{"sql": "INSERT INTO t(v) VALUES ('w')"}"#)
        #expect(service.handleOnEventLoop(write) == nil)
        #expect(service.handle(write).status.code == 200)

        #expect(service.handleOnEventLoop(Self.request("GET", "/nowhere"))?.status.code == 404)
        #expect(service.handleOnEventLoop(Self.request("POST", "/query", json: "{"))?.status.code == 400)

        #expect(
            Self.requestLines(fixture).map { "\($0.metadata["path"] ?? "") \($0.metadata["status"] ?? "")" } == [
                "/query 200", "/query 200", "/update 200", "/nowhere 404", "/query 400",
            ]
        )
        let text = try fixture.metricsText()
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="200",protocol="http/1.1"}"#, in: text) == 2
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/query",status="400",protocol="http/1.1"}"#, in: text) == 1
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="/update",status="200",protocol="http/1.1"}"#, in: text) == 1
        )
        #expect(
            sample(#"sqlited_http_requests_total{endpoint="other",status="404",protocol="http/1.1"}"#, in: text) == 1
        )
        // One miss each for the point query, the long query's rerun (the interrupted statement was evicted from
        // the cache) and the insert on the writer; the abandoned attempt's miss is not counted.
        #expect(sample("sqlited_statement_cache_misses_total", in: text) == 3)
        #expect(sample("sqlited_statement_cache_hits_total", in: text) == 0)
    }

    /// Checks that authentication failures are answered on the event loop with the bytes handle() gives, and that
    /// an authorized request goes on as usual.
    @Test func authentication_isCheckedOnTheEventLoop() throws {
        let fixture = try Self.seededFixture()
        let token = "read-token-0123456789abcdef"
        fixture.service.setTokens(
            try TokenStore(entries: [
                TokenStore.Entry(name: "reader", sha256Hex: TokenStore.sha256Hex(of: token), role: .read)
            ])
        )
        let bearer = [("Authorization", "Bearer \(token)")]
        let query = #"{"sql": "SELECT v FROM t WHERE id = 1"}"#
        let requests = [
            Self.request("POST", "/query", json: query),
            Self.request("POST", "/query", json: query, headers: [("Authorization", "Bearer wrong")]),
            Self.request("POST", "/update", json: #"{"sql": "DELETE FROM t"}"#, headers: bearer),
            Self.request("GET", "/metrics", headers: bearer),
            Self.request("POST", "/query", json: query, headers: bearer),
        ]
        for request in requests {
            let inline = try #require(fixture.service.handleOnEventLoop(request))
            #expect(try Self.wire(inline) == Self.wire(fixture.service.handle(request)))
        }
        let statuses = Self.requestLines(fixture).map { $0.metadata["status"] ?? "" }
        #expect(statuses == ["401", "401", "401", "401", "403", "403", "403", "403", "200", "200"])
        let tokens = Self.requestLines(fixture).map { $0.metadata["token"] ?? "" }
        #expect(tokens.suffix(2) == ["reader", "reader"])
    }

    /// Checks that /metrics without metrics configured is a 404 answered on the event loop.
    @Test func metricsDisabled_answers404OnTheEventLoop() throws {
        let fixture = try Self.seededFixture(withMetrics: false)
        let request = Self.request("GET", "/metrics")
        let inline = try #require(fixture.service.handleOnEventLoop(request))
        #expect(inline.status.code == 404)
        #expect(try Self.wire(inline) == Self.wire(fixture.service.handle(request)))
    }
}
