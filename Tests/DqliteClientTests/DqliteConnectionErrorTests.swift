import Foundation
import Glibc
import LoopbackTestSupport
import Testing

@testable import DqliteClient

/// DqliteConnection against a fake server on a loopback socket that answers the first request with given bytes:
/// every malformed answer is a typed error and closes the connection.
@Suite(.timeLimit(.minutes(1)))
struct DqliteConnectionErrorTests {
    /// Checks that a header announcing 32 GiB is refused before anything is allocated or read.
    @Test func hugeHeader_isTooLarge() throws {
        let error = try leaderError(answer: DqliteMessageHeader(words: .max, type: 1).encoded)
        #expect(error.kind == .tooLarge)
    }

    /// Checks that a body cut short by the peer closing is `.connectionClosed`.
    @Test func truncatedBody_isConnectionClosed() throws {
        let answer = DqliteMessageHeader(words: 3, type: 1).encoded + [1, 0, 0, 0, 0, 0, 0, 0]
        #expect(try leaderError(answer: answer).kind == .connectionClosed)
    }

    /// Checks that a response of the wrong type (EMPTY to LEADER) is a protocol violation.
    @Test func unexpectedType_isProtocolViolation() throws {
        #expect(try leaderError(answer: try DqliteResponse.empty.encoded()).kind == .protocolViolation)
    }

    /// Checks that a garbled body (an address without its NUL) is a protocol violation.
    @Test func garbledBody_isProtocolViolation() throws {
        let answer = DqliteMessageHeader(words: 2, type: 1).encoded + [1, 0, 0, 0, 0, 0, 0, 0] + Array("abcdefgh".utf8)
        #expect(try leaderError(answer: answer).kind == .protocolViolation)
    }

    /// Checks that the fake server's well-formed answer decodes, so the failures above are the answers' own.
    @Test func wellFormedAnswer_decodes() throws {
        let server = try FakeServer(answer: try DqliteResponse.server(id: 3, address: "127.0.0.1:1").encoded())
        let connection = try DqliteConnection(address: server.address)
        let leader = try #require(try connection.leader())
        #expect(leader.id == 3)
        #expect(leader.address == "127.0.0.1:1")
        #expect(server.received() == [1, 0, 0, 0, 0, 0, 0, 0] + (try DqliteRequest.leader.encoded()))
    }

    private func leaderError(answer: [UInt8]) throws -> DqliteError {
        let server = try FakeServer(answer: answer)
        let options = DqliteConnection.Options(requestTimeout: .seconds(5))
        let connection = try DqliteConnection(address: server.address, options: options)
        do {
            _ = try connection.leader()
        } catch {
            #expect(!connection.isOpen)
            #expect(throws: DqliteError.self) { try connection.leader() }
            return error
        }
        Issue.record("the malformed answer was accepted")
        throw DqliteError(kind: .protocolViolation, message: "accepted")
    }
}

/// A one-connection server on 127.0.0.1: reads the handshake and one 16-byte request, writes `answer`, closes.
final class FakeServer: @unchecked Sendable {
    // `receivedBytes` is written by the server thread before `done` is signalled and read after waiting on it.
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)
    private var receivedBytes: [UInt8] = []
    let address: String

    init(answer: [UInt8]) throws {
        let (fd, port) = try LoopbackSocket.bound(listening: true)
        listener = fd
        address = "127.0.0.1:\(port)"
        let thread = Thread { [self] in
            serve(answer)
        }
        thread.start()
    }

    deinit {
        close(listener)
    }

    /// The bytes the client sent, once the server has answered.
    func received() -> [UInt8] {
        done.wait()
        done.signal()
        return receivedBytes
    }

    private func serve(_ answer: [UInt8]) {
        defer { done.signal() }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 24)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress! + filled, $0.count - filled, 0) }
            guard count > 0 else { return }
            filled += count
        }
        receivedBytes = buffer
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
