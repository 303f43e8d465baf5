import Foundation
import Synchronization
import Testing

@testable import HTTPServer

/// Takes `/deferred/...` requests with `handleDeferred` and keeps them until `answerAll()` answers every one from
/// another thread, as a batch (the way group commit answers a group); `/inline/...` is answered on the loop and
/// anything else on a handler thread.
private final class BatchingHandler: HTTPHandler {
    private let held = Mutex<[(path: String, respond: @Sendable (HTTPResponse) -> Void)]>([])
    private let handled = Mutex<[String]>([])

    var heldCount: Int { held.withLock { $0.count } }
    var pathsOnHandlerThreads: [String] { handled.withLock { $0 } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        handled.withLock { $0.append(request.path) }
        return HTTPResponse(status: .ok, body: .bytes(Array(request.path.utf8)))
    }

    func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        request.path.hasPrefix("/inline/") ? HTTPResponse(status: .ok, body: .bytes(Array(request.path.utf8))) : nil
    }

    func handleDeferred(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        guard request.path.hasPrefix("/deferred/") else { return false }
        held.withLock { $0.append((request.path, respond)) }
        return true
    }

    /// Answers every held request, newest first, from a thread of its own.
    func answerAll() {
        let batch = held.withLock { held in
            defer { held = [] }
            return held
        }
        let thread = Thread {
            for (path, respond) in batch.reversed() {
                respond(HTTPResponse(status: .ok, body: .bytes(Array(path.utf8))))
            }
        }
        thread.start()
    }
}

extension HTTPServerTests {
    /// Requests taken by `handleDeferred` hold no handler thread and are answered whenever, from any thread: each
    /// connection gets its own answer, even when a batch is answered in another order than it arrived.
    @Test func deferred_batchAnsweredFromAnotherThread_reachesEachConnection() async throws {
        let handler = BatchingHandler()
        let server = try makeServer(handler: handler, eventLoopCount: 2)
        let address = try #require(server.boundAddresses.first)
        let clients = try (0..<20).map { _ in try TestClient(address) }
        for (index, client) in clients.enumerated() {
            try client.send(request("GET", "/deferred/\(index)"))
        }
        #expect(await eventually { handler.heldCount == 20 })
        #expect(clients.allSatisfy { !$0.isReadable() })
        handler.answerAll()
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "/deferred/\(index)")
        }
        #expect(handler.pathsOnHandlerThreads.isEmpty)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Pipelined requests of one connection mixing the three ways of answering come back in request order: the
    /// connection takes its next request only once the deferred one is answered.
    @Test func deferred_pipelinedMixIsAnsweredInOrder() async throws {
        let handler = BatchingHandler()
        let server = try makeServer(handler: handler)
        let client = try TestClient(try #require(server.boundAddresses.first))
        let paths = ["/inline/a", "/deferred/b", "/c", "/deferred/d", "/inline/e"]
        try client.send(paths.map { request("GET", $0) }.joined())
        var answered: [String] = []
        while answered.count < paths.count {
            if paths[answered.count].hasPrefix("/deferred/") {
                #expect(await eventually { handler.heldCount == 1 })
                handler.answerAll()
            }
            answered.append(try client.readResponse().text)
        }
        #expect(answered == paths)
        #expect(handler.pathsOnHandlerThreads == ["/c"])
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
