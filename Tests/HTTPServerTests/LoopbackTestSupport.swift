import Dispatch
import Foundation
import Glibc
import Logging
import Synchronization

@testable import HTTPServer

/// Echoes the request body, with the method and decoded path in response fields.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "X-Method", value: request.method)
        headers.add(name: "X-Path", value: request.path)
        headers.add(name: "Content-Type", value: "application/octet-stream")
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(request.body))
    }

    /// A JSON body of this test handler's own (the server leaves the body of its refusals to the handler), so the
    /// tests see exactly what the server passed it.
    func response(to rejection: HTTPRejection) -> HTTPResponse {
        HTTPResponse(
            status: rejection.status,
            headers: ["Content-Type": "application/json; charset=utf-8"],
            body: .bytes(Array(#"{"error":{"code":"\#(rejection.code)","message":"\#(rejection.message)"}}"#.utf8))
        )
    }
}

/// A one-shot gate that handler threads wait on and the test opens.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = Mutex(0)

    /// Called by the handler: records arrival, then blocks until `open()`.
    func pass() {
        entered.withLock { $0 += 1 }
        semaphore.wait()
        semaphore.signal()
    }

    var arrivals: Int { entered.withLock { $0 } }

    func open() { semaphore.signal() }
}

let quietLogger = Logger(label: "http-test") { _ in SwiftLogNoOpLogHandler() }

func makeServer(
    listeners: [ListenAddress] = [.tcp(host: "127.0.0.1", port: 0)],
    limits: HTTPLimits = HTTPLimits(),
    serverHeader: String? = "sqlited-test",
    handler: any HTTPHandler = EchoHandler(),
    eventLoopCount: Int = HTTPServerConfiguration.defaultEventLoopCount
) throws -> HTTPServer {
    let configuration = HTTPServerConfiguration(
        listeners: listeners,
        limits: limits,
        shutdownGracePeriod: .seconds(2),
        serverHeader: serverHeader,
        eventLoopCount: eventLoopCount
    )
    let server = HTTPServer(configuration: configuration, handler: handler, logger: quietLogger)
    try server.start()
    return server
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes (a safety net, never a measurement).
func eventually(timeout: Duration = .seconds(20), _ condition: () throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

func request(_ method: String = "GET", _ target: String = "/", body: String? = nil, extra: String = "") -> String {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n\(extra)"
    if let body { text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { text += "\r\n" }
    return text
}

func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

extension TestClient {
    /// Whether a response (or end of stream) is already waiting to be read.
    func isReadable() -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
