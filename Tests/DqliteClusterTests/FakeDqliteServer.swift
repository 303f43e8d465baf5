import Foundation
import Glibc
import LoopbackTestSupport
import Synchronization

@testable import DqliteClient

/// A scripted dqlite server on 127.0.0.1 for the retry rules: it reads the handshake, then answers each request
/// as `script` says, given the request's type code and how many requests of that type came before (across all
/// connections). Any number of connections, one thread each.
final class FakeDqliteServer: Sendable {
    /// What the server does with one request.
    enum Action: Sendable {
        case answer(DqliteResponse)
        /// Sends the answer, then closes the connection.
        case answerThenClose(DqliteResponse)
        /// Closes the connection without answering.
        case close
        /// Never answers; the connection stays open until the client closes it.
        case silence
    }

    typealias Script = @Sendable (_ server: FakeDqliteServer, _ type: UInt8, _ seen: Int) -> Action

    /// Request type codes (dqlite's `DQLITE_REQUEST_*`).
    static let leaderType: UInt8 = 0
    static let openType: UInt8 = 3
    static let execSQLType: UInt8 = 8
    static let querySQLType: UInt8 = 9
    static let clusterType: UInt8 = 16

    let address: String
    private let listener: Int32
    private let script: Script
    private let counts = Mutex<[UInt8: Int]>([:])

    init(script: @escaping Script) throws {
        let (fd, port) = try LoopbackSocket.bound(listening: true)
        listener = fd
        address = "127.0.0.1:\(port)"
        self.script = script
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit {
        // Wakes the accept loop (accept fails on a shut-down listener), which then stops.
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// How many requests of `type` the server received.
    func count(of type: UInt8) -> Int {
        counts.withLock { $0[type, default: 0] }
    }

    /// The standard answers that make this server a one-node cluster led by itself.
    func leaderAnswer(_ type: UInt8) -> Action? {
        switch type {
        case Self.leaderType: .answer(.server(id: 1, address: address))
        case Self.openType: .answer(.database(id: 0))
        case Self.clusterType: .answer(.servers([DqliteNodeInfo(id: 1, address: address, role: .voter)]))
        default: nil
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard read(client, count: 8) != nil else { return }
        while let header = read(client, count: 8) {
            let words = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
            guard read(client, count: words * 8) != nil else { return }
            let type = header[4]
            let seen = counts.withLock { counts in
                defer { counts[type, default: 0] += 1 }
                return counts[type, default: 0]
            }
            switch script(self, type, seen) {
            case .answer(let response):
                guard write(client, response) else { return }
            case .answerThenClose(let response):
                _ = write(client, response)
                return
            case .close:
                return
            case .silence:
                while read(client, count: 1) != nil {}
                return
            }
        }
    }

    private func read(_ fd: Int32, count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, count - filled, 0) }
            guard received > 0 else { return nil }
            filled += received
        }
        return buffer
    }

    private func write(_ fd: Int32, _ response: DqliteResponse) -> Bool {
        guard let bytes = try? response.encoded() else { return false }
        return bytes.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
