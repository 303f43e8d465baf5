import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import HTTPServer

/// Tests over real loopback sockets. Serialized: some count the process's open descriptors.
@Suite(.serialized) struct HTTPServerTests {
    /// Port 0 picks a real port, and one connection serves several requests (keep-alive).
    @Test func keepAlive_reusesOneConnection() async throws {
        let server = try makeServer()
        let address = try #require(server.boundAddresses.first)
        #expect(address.port != nil && address.port != 0)
        let client = try TestClient(address)
        for index in 0..<3 {
            try client.send(request("POST", "/item/\(index)", body: "body \(index)"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "body \(index)")
            #expect(response.headers["X-Path"] == "/item/\(index)")
            #expect(response.headers["Connection"] == nil)
            #expect(response.headers["Server"] == "sqlited-test")
            #expect(response.headers["Date"]?.hasSuffix(" GMT") == true)
        }
        #expect(server.openConnectionCount == 1)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// 100 requests written at once on one connection are all answered, in order.
    @Test func pipelining_answersHundredRequestsInOrder() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send((0..<100).map { request("GET", "/\($0)") }.joined())
        for index in 0..<100 {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["X-Path"] == "/\(index)")
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A client trickling its head one byte every 100 ms gets 408 at the absolute head deadline, while another
    /// client keeps being served.
    @Test func slowloris_getsRequestTimeoutWhileOthersAreServed() async throws {
        var limits = HTTPLimits()
        limits.headTimeout = .seconds(1)
        let server = try makeServer(limits: limits)
        let address = try #require(server.boundAddresses.first)
        let slow = try TestClient(address)
        let normal = try TestClient(address)
        let drip =
            Array("GET / HTTP/1.1\r\nHost: test\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200)
        var servedMeanwhile = 0
        for byte in drip {
            if slow.isReadable() { break }
            try slow.send([byte])
            try normal.send(request("GET", "/normal"))
            let response = try normal.readResponse()
            if response.status == 200 { servedMeanwhile += 1 }
            try await Task.sleep(for: .milliseconds(100))
        }
        let response = try slow.readResponse()
        #expect(response.status == 408)
        #expect(response.text.contains("REQUEST_TIMEOUT"))
        #expect(response.headers["Connection"] == "close")
        #expect(servedMeanwhile > 0)
        #expect(try slow.waitForClose())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A thousand connections open at the same time are all served.
    @Test func thousandConcurrentConnections_areServed() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let server = try makeServer()
        let address = try #require(server.boundAddresses.first)
        var clients: [TestClient] = []
        // Connect in batches that fit the listen backlog: an overflowing accept queue makes the kernel drop
        // handshakes and retransmit with backoff, which tests the kernel rather than the server.
        for batch in 0..<10 {
            for _ in 0..<100 { clients.append(try TestClient(address)) }
            #expect(await eventually { server.openConnectionCount == (batch + 1) * 100 })
        }
        for (index, client) in clients.enumerated() { try client.send(request("POST", "/c", body: "\(index)")) }
        for (index, client) in clients.enumerated() {
            let response: TestResponse
            do {
                response = try client.readResponse()
            } catch {
                let busy = server.connectionStatistics().filter { $0.phase != .idle || $0.inFlight }
                Issue.record(
                    "client \(index) got no response (\(error)); open: \(server.openConnectionCount), busy: \(busy)"
                )
                throw error
            }
            #expect(response.status == 200)
            #expect(response.text == "\(index)")
        }
        #expect(server.openConnectionCount == 1000)
        clients = []
        #expect(await eventually { server.openConnectionCount == 0 })
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Many keep-alive clients in parallel, each receiving large responses (partial writes, write readiness events)
    /// and sending its next request only after reading the previous response, all get complete answers.
    @Test func parallelClients_largeResponses_allComplete() async throws {
        let payload = [UInt8](repeating: UInt8(ascii: "z"), count: 256 * 1024)
        let handler = ClosureHTTPHandler { request in
            HTTPResponse(status: .ok, headers: ["X-Path": request.path], body: .bytes(payload))
        }
        let server = try makeServer(handler: handler)
        let address = try #require(server.boundAddresses.first)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for clientIndex in 0..<16 {
            // Plain threads: blocking clients on Dispatch's pool would starve the server's own queues.
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let client = try TestClient(address)
                    for requestIndex in 0..<30 {
                        try client.send(request("GET", "/\(clientIndex)/\(requestIndex)"))
                        let response = try client.readResponse()
                        if response.body != payload || response.headers["X-Path"] != "/\(clientIndex)/\(requestIndex)" {
                            failures.withLock { $0.append("client \(clientIndex) request \(requestIndex): wrong body") }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("client \(clientIndex): \(error)") }
                }
            }
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        #expect(failures.withLock { $0 } == [])
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Handlers blocked on some connections do not hold back requests on other connections (handlers run on their
    /// own threads, not on Dispatch's CPU-wide pool).
    @Test func blockedHandlers_doNotHoldBackOtherRequests() async throws {
        let gate = Gate()
        let handler = ClosureHTTPHandler { request in
            if request.path == "/block" { gate.pass() }
            return HTTPResponse(status: .ok, body: .bytes(Array(request.path.utf8)))
        }
        let server = try makeServer(handler: handler)
        let address = try #require(server.boundAddresses.first)
        var blocked: [TestClient] = []
        for _ in 0..<8 {
            let client = try TestClient(address)
            try client.send(request("GET", "/block"))
            blocked.append(client)
        }
        #expect(await eventually { gate.arrivals == 8 })
        let free = try TestClient(address)
        for _ in 0..<3 {
            try free.send(request("GET", "/free"))
            #expect(try free.readResponse().text == "/free")
        }
        gate.open()
        for client in blocked { #expect(try client.readResponse().text == "/block") }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Clients that disconnect in the middle of a request leave no descriptor or connection behind.
    @Test func disconnectMidRequest_leaksNothing() async throws {
        let server = try makeServer()
        let address = try #require(server.boundAddresses.first)
        // Warm up: Dispatch opens its own descriptors (timers) lazily on first use; they are not leaks.
        do {
            let warmUp = try TestClient(address)
            try warmUp.send(request())
            _ = try warmUp.readResponse()
        }
        #expect(await eventually { server.openConnectionCount == 0 })
        // The server's own count of descriptors: other suites run in parallel and open and close descriptors of
        // their own (database files, pipes of child processes, sockets), so the process's count cannot tell.
        #expect(server.connectionDescriptors.load(ordering: .relaxed) == 0)
        var clients: [TestClient] = []
        for index in 0..<20 {
            let client = try TestClient(address)
            if index.isMultiple(of: 2) {
                try client.send("GET /partial HTTP/1.1\r\nHost: te")
            } else {
                try client.send("POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly part")
            }
            clients.append(client)
        }
        // Every connection is accepted and holds a partial request before the clients go away.
        #expect(await eventually { server.openConnectionCount == 20 })
        #expect(await eventually { server.connectionDescriptors.load(ordering: .relaxed) == 20 })
        clients = []
        #expect(
            await eventually {
                server.openConnectionCount == 0 && server.connectionDescriptors.load(ordering: .relaxed) == 0
            }
        )
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A body announced larger than the limit is refused with 413 from the head alone, without sending it.
    @Test func oversizedBody_isRefusedFromContentLength() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 10737418240\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("PAYLOAD_TOO_LARGE"))
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["Connection"] == "close")
        #expect(try client.waitForClose())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A client that pipelines requests for large streamed responses and never reads them does not make the server
    /// buffer more than its output bound.
    @Test func clientThatNeverReads_keepsServerOutputBounded() async throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
        let produced = Mutex(0)
        let handler = ClosureHTTPHandler { _ in
            HTTPResponse(
                status: .ok,
                body: .stream { writer in
                    for _ in 0..<256 {
                        try writer.write(chunk)
                        produced.withLock { $0 += 1 }
                    }
                }
            )
        }
        var limits = HTTPLimits()
        limits.maxPendingOutput = 64 * 1024
        let server = try makeServer(limits: limits, handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send((0..<50).map { _ in request("GET", "/big") }.joined())
        // Wait until backpressure has engaged: the server holds a full output buffer it cannot send.
        #expect(
            await eventually {
                server.connectionStatistics().contains { $0.pendingOutput >= limits.maxPendingOutput }
            }
        )
        let producedWhenBlocked = produced.withLock { $0 }
        try await Task.sleep(for: .milliseconds(500))
        let statistics = try #require(server.connectionStatistics().first)
        let chunkFraming = 16
        #expect(statistics.maxObservedPendingOutput <= limits.maxPendingOutput + chunk.count + chunkFraming)
        // The producer is held back too: the kernel's socket buffers may still absorb some output (they grow with
        // autotuning), but far from the 200 MiB the client asked for.
        #expect(producedWhenBlocked < 50 * 256)
        #expect(produced.withLock { $0 } < 50 * 256)
        await server.shutdown(gracePeriod: .milliseconds(100))
        #expect(server.openConnectionCount == 0)
    }

    /// `Expect: 100-continue` gets an interim 100 before the body is sent, then the final response.
    @Test func expectContinue_sendsInterimResponse() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("POST /e HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("hello")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "hello")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A chunked request body arriving in pieces is de-chunked.
    @Test func chunkedRequestBody_isDechunked() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n")
        try await Task.sleep(for: .milliseconds(50))
        try client.send("7;ext=1\r\npedia i\r\nB\r\nn \r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "Wikipedia in \r\nchunks.")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A streamed response goes out chunked, and the connection stays usable afterwards.
    @Test func streamedResponse_isChunked() async throws {
        let handler = ClosureHTTPHandler { request in
            HTTPResponse(
                status: .ok,
                body: .stream { writer in
                    try writer.write("alpha,")
                    try writer.write([])
                    try writer.write("beta")
                }
            )
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        for _ in 0..<2 {
            try client.send(request())
            let response = try client.readResponse()
            #expect(response.headers["Transfer-Encoding"] == "chunked")
            #expect(response.headers["Content-Length"] == nil)
            #expect(response.text == "alpha,beta")
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A streamed body whose producer throws is left without its last chunk and the connection is closed, so the
    /// client can tell the body is incomplete.
    @Test func streamedResponse_producerErrorClosesConnection() async throws {
        struct Failure: Error {}
        let handler = ClosureHTTPHandler { _ in
            HTTPResponse(
                status: .ok,
                body: .stream { writer in
                    try writer.write("partial")
                    throw Failure()
                }
            )
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        #expect(throws: TestClientError.self) { try client.readResponse() }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// HTTP/1.0 clients get a streamed body delimited by the end of the connection (no chunked coding).
    @Test func streamedResponse_toHTTP10IsCloseDelimited() async throws {
        let handler = ClosureHTTPHandler { _ in
            HTTPResponse(status: .ok, body: .stream { writer in try writer.write("old client") })
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["Transfer-Encoding"] == nil)
        #expect(response.headers["Connection"] == "close")
        #expect(response.text == "old client")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// An HTTP/1.0 client asking for keep-alive gets it, announced with `Connection: keep-alive`; without asking,
    /// its connection is closed after the response.
    @Test func http10_keepAliveOnlyWhenAsked() async throws {
        let server = try makeServer()
        let address = try #require(server.boundAddresses.first)
        let client = try TestClient(address)
        for _ in 0..<2 {
            try client.send("POST /old HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi")
            let response = try client.readResponse()
            #expect(response.text == "hi")
            #expect(response.headers["Connection"] == "keep-alive")
        }
        let plain = try TestClient(address)
        try plain.send("GET /old HTTP/1.0\r\n\r\n")
        #expect(try plain.readResponse().headers["Connection"] == "close")
        #expect(try plain.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A body writer kept past the end of its response cannot write into the next response.
    @Test func streamWriter_isInvalidAfterItsResponse() async throws {
        let kept = Mutex<HTTPBodyWriter?>(nil)
        let handler = ClosureHTTPHandler { request in
            if request.path == "/keep" {
                return HTTPResponse(
                    status: .ok,
                    body: .stream { writer in
                        try writer.write("first")
                        kept.withLock { $0 = writer }
                    }
                )
            }
            return HTTPResponse(status: .ok, body: .bytes(Array("second".utf8)))
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("GET", "/keep"))
        #expect(try client.readResponse().text == "first")
        let writer = try #require(kept.withLock { $0 })
        #expect(throws: HTTPServerError.self) { try writer.write("intruder") }
        try client.send(request("GET", "/other"))
        #expect(try client.readResponse().text == "second")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// HEAD gets the headers (with the length) but no body; 204 gets neither body nor length.
    @Test func headAndNoContent_carryNoBody() async throws {
        let handler = ClosureHTTPHandler { request in
            request.path == "/empty"
                ? HTTPResponse(status: .noContent, body: .bytes(Array("ignored".utf8)))
                : HTTPResponse(status: .ok, body: .bytes(Array("twelve bytes".utf8)))
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("HEAD", "/"))
        let head = try client.readResponse(forHEAD: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "12")
        try client.send(request("GET", "/empty"))
        let empty = try client.readResponse()
        #expect(empty.status == 204)
        #expect(empty.headers["Content-Length"] == nil)
        // Had a body been sent after either response, it would be read here as a broken status line.
        try client.send(request("GET", "/"))
        let next = try client.readResponse()
        #expect(next.text == "twelve bytes")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A Unix socket listener serves requests, and its socket file is removed at shutdown.
    @Test func unixSocketListener_servesAndCleansUp() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/http.sock"
        // A stale socket file, as a crashed earlier run leaves it, is replaced.
        let staleFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var staleAddress = sockaddr_un()
        staleAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &staleAddress.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let staleBound = withUnsafePointer(to: &staleAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(staleFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(staleFD)
        try #require(staleBound == 0 && FileManager.default.fileExists(atPath: path))
        let server = try makeServer(listeners: [.unix(path: path)])
        #expect(server.boundAddresses == [.unix(path: path)])
        let client = try TestClient(.unix(path: path))
        try client.send(request("POST", "/u", body: "over unix"))
        let response = try client.readResponse()
        #expect(response.text == "over unix")
        await server.shutdown(gracePeriod: .seconds(1))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A path that exists and is not a socket is never deleted to make room for the listener.
    @Test func unixSocketListener_refusesToReplaceRegularFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/data.db"
        try #require(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        #expect(throws: HTTPServerError.self) { try makeServer(listeners: [.unix(path: path)]) }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    /// An IPv6 loopback listener serves requests.
    @Test func ipv6Listener_serves() async throws {
        let server = try makeServer(listeners: [.tcp(host: "::1", port: 0)])
        let address = try #require(server.boundAddresses.first)
        guard case .tcp(let host, let port) = address else {
            Issue.record("not a TCP address")
            return
        }
        #expect(host == "::1")
        #expect(port != 0)
        let client = try TestClient(address)
        try client.send(request("POST", "/v6", body: "six"))
        #expect(try client.readResponse().text == "six")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A listening descriptor created elsewhere (systemd socket activation) is adopted.
    @Test func fileDescriptorListener_isAdopted() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try #require(listen(fd, 16) == 0)
        let server = try makeServer(listeners: [.fileDescriptor(fd)])
        let boundAddress = try #require(server.boundAddresses.first)
        #expect(boundAddress.port != nil && boundAddress.port != 0)
        let client = try TestClient(boundAddress)
        try client.send(request("POST", "/fd", body: "adopted"))
        #expect(try client.readResponse().text == "adopted")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Past the connection limit a new client gets 503 and is closed, while the existing ones keep working.
    @Test func connectionLimit_refusesWith503AndKeepsOthers() async throws {
        var limits = HTTPLimits()
        limits.maxConnections = 2
        let server = try makeServer(limits: limits)
        let address = try #require(server.boundAddresses.first)
        let first = try TestClient(address)
        let second = try TestClient(address)
        for client in [first, second] {
            try client.send(request())
            #expect(try client.readResponse().status == 200)
        }
        let third = try TestClient(address)
        let refused = try third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.text.contains("UNAVAILABLE"))
        #expect(refused.headers["Connection"] == "close")
        #expect(try third.waitForClose())
        for client in [first, second] {
            try client.send(request("POST", "/", body: "still here"))
            #expect(try client.readResponse().text == "still here")
        }
        #expect(server.openConnectionCount == 2)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Shutdown lets an in-flight request finish (answered with `Connection: close`), closes idle connections,
    /// refuses new connections, and completes.
    @Test func gracefulShutdown_finishesInFlightAndRefusesNew() async throws {
        let gate = Gate()
        let handler = ClosureHTTPHandler { request in
            if request.path == "/slow" { gate.pass() }
            return HTTPResponse(status: .ok, body: .bytes(Array("done \(request.path)".utf8)))
        }
        let server = try makeServer(handler: handler)
        let address = try #require(server.boundAddresses.first)
        let idle = try TestClient(address)
        try idle.send(request("GET", "/idle"))
        #expect(try idle.readResponse().status == 200)
        let busy = try TestClient(address)
        try busy.send(request("GET", "/slow"))
        #expect(await eventually { gate.arrivals == 1 })

        let finished = Mutex(false)
        server.shutdown(gracePeriod: .seconds(30)) { finished.withLock { $0 = true } }
        #expect(try idle.waitForClose())
        #expect(await eventually { (try? TestClient(address)) == nil })
        #expect(finished.withLock { $0 } == false)

        gate.open()
        let response = try busy.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "done /slow")
        #expect(response.headers["Connection"] == "close")
        #expect(await eventually { finished.withLock { $0 } })
        #expect(server.openConnectionCount == 0)
    }

    /// After the grace period, connections still busy are closed and shutdown completes.
    @Test func shutdown_closesBusyConnectionsAfterGracePeriod() async throws {
        let gate = Gate()
        let handler = ClosureHTTPHandler { _ in
            gate.pass()
            return HTTPResponse(status: .ok)
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        #expect(await eventually { gate.arrivals == 1 })
        await server.shutdown(gracePeriod: .milliseconds(200))
        #expect(server.openConnectionCount == 0)
        #expect(try client.waitForClose())
        gate.open()
    }

    /// An idle keep-alive connection is closed quietly after the idle timeout, with no response.
    @Test func idleTimeout_closesQuietly() async throws {
        var limits = HTTPLimits()
        limits.idleTimeout = .milliseconds(300)
        let server = try makeServer(limits: limits)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        #expect(try client.readResponse().status == 200)
        #expect(try client.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A body that stops arriving gets 408 after the inactivity timeout.
    @Test func bodyInactivity_getsRequestTimeout() async throws {
        var limits = HTTPLimits()
        limits.bodyInactivityTimeout = .milliseconds(300)
        let server = try makeServer(limits: limits)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send("POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nab")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.text.contains("REQUEST_TIMEOUT"))
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A malformed request after a good one: the good one is answered, the bad one gets 400 and the connection
    /// closes without looking at anything after it.
    @Test func framingError_answers400AndCloses() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(
            request("GET", "/good")
                + "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + request("GET", "/smuggled")
        )
        #expect(try client.readResponse().headers["X-Path"] == "/good")
        let rejected = try client.readResponse()
        #expect(rejected.status == 400)
        #expect(
            rejected.text == #"{"error":{"code":"BAD_REQUEST","message":"both Content-Length and Transfer-Encoding"}}"#
        )
        #expect(try client.readToEnd().isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A limit change applies to the next request on an existing connection.
    @Test func setLimits_appliesToNewRequests() async throws {
        let server = try makeServer()
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request("POST", "/", body: "12345"))
        #expect(try client.readResponse().status == 200)
        var limits = server.currentLimits
        limits.maxBodySize = 4
        server.setLimits(limits)
        try client.send(request("POST", "/", body: "12345"))
        #expect(try client.readResponse().status == 413)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Handler fields that would break framing or inject lines are not sent.
    @Test func handlerFields_cannotBreakFraming() async throws {
        let handler = ClosureHTTPHandler { _ in
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "999")
            headers.add(name: "X-Injected", value: "a\r\nSet-Cookie: evil=1")
            headers.add(name: "X-Fine", value: "yes")
            return HTTPResponse(status: .ok, headers: headers, body: .bytes(Array("ok".utf8)))
        }
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        try client.send(request())
        let response = try client.readResponse()
        #expect(response.headers["Content-Length"] == "2")
        #expect(response.headers["Set-Cookie"] == nil)
        #expect(response.headers["X-Injected"] == nil)
        #expect(response.headers["X-Fine"] == "yes")
        #expect(response.text == "ok")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Starting twice is refused, and shutting down a server that never started completes at once.
    @Test func lifecycle_misuseIsReported() async throws {
        let server = try makeServer()
        #expect(throws: HTTPServerError.self) { try server.start() }
        await server.shutdown(gracePeriod: .zero)
        let neverStarted = HTTPServer(
            configuration: HTTPServerConfiguration(),
            handler: EchoHandler(),
            logger: quietLogger
        )
        await neverStarted.shutdown(gracePeriod: nil)
        #expect(neverStarted.openConnectionCount == 0)
    }
}
