import Foundation
import Glibc
import Testing

@testable import DqliteNode

/// The Raft connection a node opens to another (`dqlite_node_set_connect_func`): `TCP_NODELAY` on, names and IPv6
/// resolved, bad addresses refused with `RAFT_NOCONNECTION`. The cluster suites use it for every Raft connection.
@Suite struct RaftConnectorTests {
    /// A listening TCP socket on the loopback address of `family`, and its port.
    private static func listener(family: Int32, backlog: Int32 = 4) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var length: socklen_t
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            try #require(bound == 0)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            try #require(bound == 0)
        }
        try #require(listen(fd, backlog) == 0)
        var storage = sockaddr_storage()
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = withUnsafePointer(to: &storage) { pointer -> UInt16 in
            family == AF_INET6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
        }
        return (fd, port)
    }

    /// Whether `fd` has `TCP_NODELAY` set.
    private static func noDelay(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0 && value != 0
    }

    /// Checks that the connector, called as dqlite calls it, connects to an IPv4 literal, a name and a bracketed
    /// IPv6 literal, and that each socket has Nagle's algorithm off.
    @Test(arguments: ["127.0.0.1", "localhost", "[::1]"])
    func connect_setsNoDelay(host: String) throws {
        let family = host.hasPrefix("[") ? AF_INET6 : AF_INET
        let (listening, port) = try Self.listener(family: family)
        defer { close(listening) }
        var fd: Int32 = -1
        let code = "\(host):\(port)".withCString { RaftConnector.connect(nil, $0, &fd) }
        #expect(code == 0)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(Self.noDelay(fd))
        let accepted = accept(listening, nil, nil)
        #expect(accepted >= 0)
        if accepted >= 0 { close(accepted) }
    }

    /// Checks that a malformed address, an unknown name and a port nobody listens on are `RAFT_NOCONNECTION`,
    /// leaving `fd` untouched.
    @Test(arguments: ["127.0.0.1", "127.0.0.1:", ":9001", "127.0.0.1:90x1", "no-such-host.invalid:9001", "closed"])
    func connect_refusesWhatItCannotReach(address: String) throws {
        var target = address
        if address == "closed" {
            let (listening, port) = try Self.listener(family: AF_INET)
            close(listening)
            target = "127.0.0.1:\(port)"
        }
        var fd: Int32 = -7
        let code = target.withCString { RaftConnector.connect(nil, $0, &fd) }
        #expect(code == RaftConnector.noConnection)
        #expect(fd == -7)
    }

    /// Checks that a peer that does not answer (a listener whose accept queue is full drops the SYN, as a machine
    /// that is gone would leave it unanswered) is given up after the timeout, and that the socket a connect
    /// returns is in blocking mode (dqlite writes its handshake on it with plain `write`).
    @Test func connect_givesUpOnAPeerThatDoesNotAnswer_andReturnsABlockingSocket() throws {
        let (listening, port) = try Self.listener(family: AF_INET, backlog: 0)
        defer { close(listening) }
        // The first connection fills the accept queue (never accepted); the next SYN is dropped.
        let first = try #require(RaftConnector.open("127.0.0.1:\(port)", timeoutMilliseconds: 2000))
        defer { close(first) }
        #expect(fcntl(first, F_GETFL) & O_NONBLOCK == 0)
        let started = ContinuousClock.now
        #expect(RaftConnector.open("127.0.0.1:\(port)", timeoutMilliseconds: 200) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(190))
    }

    /// Checks how an address is split into host and port.
    @Test func split_hostAndPort() {
        #expect(RaftConnector.split("10.0.0.1:9001")! == ("10.0.0.1", "9001"))
        #expect(RaftConnector.split("db-1.internal:9001")! == ("db-1.internal", "9001"))
        #expect(RaftConnector.split("[fe80::1]:9001")! == ("fe80::1", "9001"))
        #expect(RaftConnector.split("9001") == nil)
        #expect(RaftConnector.split("[::1]:") == nil)
    }
}
