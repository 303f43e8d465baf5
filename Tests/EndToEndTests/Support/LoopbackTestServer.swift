import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A scripted HTTP server on a loopback socket (port 0), for testing ``HTTPTestClient`` without sqlited.
///
/// Each accepted connection gets a thread that reads requests (head plus a `Content-Length` body) and answers
/// with whatever the handler returns: bytes to send, optionally closing afterwards; silence; or an immediate close.
///
/// Releasing the server stops it (its threads hold only the inner `LoopbackTestServerCore`, never the server itself).
final class LoopbackTestServer {
    /// A request as the server read it.
    struct ReceivedRequest: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Which connection (0-based, in accept order) carried it.
        var connectionIndex: Int
        /// Its position on that connection (0-based).
        var indexOnConnection: Int

        func header(_ name: String) -> String? {
            headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
        }
    }

    /// What to do with a request.
    enum Reply: Sendable {
        /// Send these bytes; close the connection afterwards when `close` is true.
        case send([UInt8], close: Bool)
        /// Never answer (and keep the connection open until the server stops).
        case silence
        /// Close the connection without answering.
        case close
    }

    private let core: LoopbackTestServerCore

    /// The port the server listens on (127.0.0.1).
    var port: UInt16 { core.port }

    init(handler: @escaping @Sendable (ReceivedRequest) -> Reply) throws {
        core = try LoopbackTestServerCore(handler: handler)
    }

    deinit {
        core.stop()
    }

    /// How many connections were accepted so far.
    var connectionsAccepted: Int { core.connectionsAccepted }

    /// Every request read so far, in arrival order.
    var requests: [ReceivedRequest] { core.requests }

    /// Stops accepting and shuts down every open connection.
    func stop() {
        core.stop()
    }

    /// A complete response with a `Content-Length` body.
    static func response(
        status: Int = 200,
        reason: String = "OK",
        headers: [(String, String)] = [],
        body: String
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        return Array((head + body).utf8)
    }
}

/// The listening socket and connection threads of a ``LoopbackTestServer``.
///
/// `@unchecked Sendable`: the listener socket is only used by the accept thread and by `stop()` (which only shuts it
/// down to wake that thread); every other mutable value is inside `state`, guarded by its `Mutex`.
private final class LoopbackTestServerCore: @unchecked Sendable {
    typealias ReceivedRequest = LoopbackTestServer.ReceivedRequest
    typealias Reply = LoopbackTestServer.Reply

    let port: UInt16
    private let listener: TestSocket
    private let handler: @Sendable (ReceivedRequest) -> Reply

    private struct State {
        var connectionsAccepted = 0
        var requests: [ReceivedRequest] = []
        var openDescriptors: Set<Int32> = []
        var stopped = false
    }

    private let state = Mutex(State())

    init(handler: @escaping @Sendable (ReceivedRequest) -> Reply) throws {
        listener = try TestSocket.listen(host: "127.0.0.1")
        port = try listener.localPort
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// How many connections were accepted so far.
    var connectionsAccepted: Int { state.withLock { $0.connectionsAccepted } }

    /// Every request read so far, in arrival order.
    var requests: [ReceivedRequest] { state.withLock { $0.requests } }

    /// Stops accepting and shuts down every open connection.
    func stop() {
        let descriptors = state.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.openDescriptors
        }
        listener.shutdown()
        for descriptor in descriptors {
            _ = shutdownDescriptor(descriptor)
        }
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            guard let connection = try? listener.accept() else { return }
            let index = state.withLock { state -> Int in
                state.connectionsAccepted += 1
                state.openDescriptors.insert(connection.descriptor)
                return state.connectionsAccepted - 1
            }
            // The connection object moves to its own thread and is used only there.
            let box = UncheckedBox(connection)
            Thread { [self] in serve(box.value, connectionIndex: index) }.start()
        }
    }

    private func serve(_ connection: TestSocket, connectionIndex: Int) {
        defer {
            _ = state.withLock { $0.openDescriptors.remove(connection.descriptor) }
            connection.close()
        }
        try? connection.setTimeout(seconds: 30)
        var buffer: [UInt8] = []
        var requestIndex = 0
        while true {
            guard
                let request = readRequest(
                    connection,
                    buffer: &buffer,
                    connectionIndex: connectionIndex,
                    indexOnConnection: requestIndex
                )
            else { return }
            requestIndex += 1
            state.withLock { $0.requests.append(request) }
            switch handler(request) {
            case .send(let bytes, let close):
                do { try connection.sendAll(bytes) } catch { return }
                if close { return }
            case .silence:
                // Hold the connection until the peer or stop() ends it.
                while let chunk = try? connection.receive(), !chunk.isEmpty {}
                return
            case .close:
                return
            }
        }
    }

    private func readRequest(
        _ connection: TestSocket,
        buffer: inout [UInt8],
        connectionIndex: Int,
        indexOnConnection: Int
    ) -> ReceivedRequest? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if buffer.count >= 4 {
                for start in 0...(buffer.count - 4) where Array(buffer[start..<start + 4]) == terminator {
                    headEnd = start
                    break
                }
            }
            if headEnd != nil { break }
            guard let chunk = try? connection.receive(), !chunk.isEmpty else { return nil }
            buffer += chunk
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        let lines = head.split(separator: "\r\n" as Character, omittingEmptySubsequences: false)
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap { Int($0.value) } ?? 0
        while buffer.count < length {
            guard let chunk = try? connection.receive(), !chunk.isEmpty else { return nil }
            buffer += chunk
        }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return ReceivedRequest(
            method: String(requestLine[0]),
            target: String(requestLine[1]),
            headers: headers,
            body: body,
            connectionIndex: connectionIndex,
            indexOnConnection: indexOnConnection
        )
    }
}

/// Carries a non-Sendable value into a thread that becomes its only user.
///
/// `@unchecked Sendable`: the sender gives the value up; only the receiving thread touches it afterwards.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private func shutdownDescriptor(_ descriptor: Int32) -> Int32 {
    shutdown(descriptor, Int32(SHUT_RDWR))
}
