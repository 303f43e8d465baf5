import Foundation
import Synchronization
import Testing

/// Connection behaviour of the real server: many concurrent keep-alive clients, pipelining, `Expect: 100-continue`
/// and chunked request bodies.
@Suite struct TransportTests {
    /// 32 clients on their own threads and keep-alive connections mix reads and inserts with no error at all, and
    /// the final count is exact.
    @Test func concurrentClients_mixReadsAndWritesWithoutErrors() throws {
        let server = try SharedSqlited.get()
        let table = uniqueTableName("cc")
        try server.makeClient().update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, client INTEGER, n INTEGER)")
        let clientCount = 32
        let insertsPerClient = 20
        let failures = Mutex<[String]>([])
        let connections = Mutex<[Int]>([])
        let group = DispatchGroup()
        for clientIndex in 0..<clientCount {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let client = try server.makeClient()
                    for n in 0..<insertsPerClient {
                        let insert = try client.post(
                            "/update",
                            #"""
                            {"sql": "INSERT INTO \#(table)(client, n) VALUES (?, ?)",
                             "params": [\#(clientIndex), \#(n)]}
                            """#
                        )
                        if insert.status != 200 { failures.withLock { $0.append("insert: \(insert.bodyText)") } }
                        let read = try client.post(
                            "/query",
                            #"""
                            {"sql": "SELECT count(*) AS c FROM \#(table) WHERE client = ?",
                             "params": [\#(clientIndex)]}
                            """#
                        )
                        let seen = try read.json()["rows"]?[0]?["c"]?.int64Value
                        // Each client reads its own writes: the reader's snapshot starts after the insert committed.
                        if read.status != 200 || seen != Int64(n + 1) {
                            failures.withLock { $0.append("read \(read.status) saw \(seen.map(String.init) ?? "nil")") }
                        }
                    }
                    connections.withLock { $0.append(client.connectionsOpened) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(connections.withLock { $0 } == Array(repeating: 1, count: clientCount))
        let client = try server.makeClient()
        #expect(try client.scalarInt("SELECT count(*) FROM \(table)") == Int64(clientCount * insertsPerClient))
        #expect(try client.scalarInt("SELECT count(DISTINCT client) FROM \(table)") == Int64(clientCount))
    }

    /// Several requests in one write are answered in order on the same connection.
    @Test func pipelinedRequests_areAnsweredInOrder() throws {
        let client = try SharedSqlited.get().makeClient()
        let table = uniqueTableName("pl")
        var bytes: [UInt8] = []
        let bodies = [
            ("/update", #"{"sql": "CREATE TABLE \#(table)(x)"}"#),
            ("/update", #"{"sql": "INSERT INTO \#(table) VALUES (1)"}"#),
            ("/query", #"{"sql": "SELECT count(*) AS c FROM \#(table)"}"#),
            ("/query", #"{"sql": "SELEC"}"#),
            ("/update", #"{"sql": "INSERT INTO \#(table) VALUES (2)"}"#),
        ]
        for (path, body) in bodies {
            bytes += HTTPTestClient.serializeRequest(
                method: "POST",
                path: path,
                host: "x",
                headers: [("Content-Type", "application/json")],
                body: Array(body.utf8)
            )
        }
        bytes += HTTPTestClient.serializeRequest(method: "GET", path: "/health", host: "x", headers: [], body: nil)
        try client.sendRaw(bytes)
        let responses = try (0..<6).map { _ in try client.readResponse(requestMethod: "POST") }
        #expect(responses.map(\.status) == [200, 200, 200, 400, 200, 200])
        #expect(try responses[2].json()["rows"]?[0]?["c"] == .integer(1))
        #expect(responses[3].errorCode == "SQLITE_ERROR")
        #expect(try responses[4].json()["last_insert_rowid"] == .integer(2))
        #expect(try responses[5].json()["status"] == .string("ok"))
        #expect(client.connectionsOpened == 1)
    }

    /// `Expect: 100-continue` gets an interim 100 before the body is sent, then the final answer.
    @Test func expectContinue_isAnswered() throws {
        let client = try SharedSqlited.get().makeClient()
        let body = #"{"sql": "SELECT 7 AS v"}"#
        try client.sendRaw(
            "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n"
        )
        let interim = try client.readResponse(requestMethod: "POST", includeInterim: true)
        #expect(interim.status == 100)
        try client.sendRaw(body)
        let response = try client.readResponse(requestMethod: "POST")
        #expect(response.status == 200)
        #expect(try response.json()["rows"]?[0]?["v"] == .integer(7))
    }

    /// A chunked request body (with extensions and a trailer) is decoded; the connection stays usable.
    @Test func chunkedRequestBody_isDecoded() throws {
        let client = try SharedSqlited.get().makeClient()
        let body = Array(#"{"sql": "SELECT ? AS v", "params": ["chunked ü"]}"#.utf8)
        var raw = Array(
            "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                .utf8
        )
        var offset = 0
        for size in [1, 7, 13, 100] where offset < body.count {
            let end = min(body.count, offset + size)
            raw += Array((String(end - offset, radix: 16) + (size == 7 ? ";ext=1" : "") + "\r\n").utf8)
            raw += body[offset..<end] + Array("\r\n".utf8)
            offset = end
        }
        raw += Array("0\r\nX-Trailer: t\r\n\r\n".utf8)
        try client.sendRaw(raw)
        let response = try client.readResponse(requestMethod: "POST")
        #expect(response.status == 200, "\(response.bodyText)")
        #expect(try response.json()["rows"]?[0]?["v"] == .string("chunked ü"))
        #expect(try client.get("/health").status == 200)
        #expect(client.connectionsOpened == 1)
    }

    /// `Connection: close` is honoured: the server answers, then closes.
    @Test func connectionClose_isHonoured() throws {
        let client = try SharedSqlited.get().makeClient()
        try client.sendRaw("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.closesConnection)
        #expect(!client.isConnected)
    }

    /// Every request on a fresh connection is answered, under many short connections opened at once (64 threads,
    /// 50 connections each, `GET /health` with `Connection: close`). The loss this guards against is rare (about one
    /// connection in a few thousand on a loaded 2-core machine), so one run may pass even with the bug present.
    @Test func freshConnections_areAllAnswered() throws {
        let server = try SharedSqlited.get()
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<64 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                for _ in 0..<50 {
                    do {
                        let client = try HTTPTestClient(baseURL: server.baseURL, timeoutSeconds: 20)
                        try client.sendRaw("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        let response = try client.readResponse()
                        if response.status != 200 { failures.withLock { $0.append("status \(response.status)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            thread.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
    }
}
