import Glibc

/// TCP sockets on 127.0.0.1 for tests that need a port of their own or a listener that answers by script.
public enum LoopbackSocket {
    /// Why a loopback socket could not be had.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel chose, listening (backlog 16) when `listening` is true;
    /// the caller closes `fd`.
    public static func bound(listening: Bool) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && (!listening || listen(fd, 16) == 0)
                    && getsockname(fd, pointer, &length) == 0
            }
        }
        guard ready else {
            let code = errno
            close(fd)
            throw Failure(description: "cannot bind a loopback socket: errno \(code)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

/// A port on 127.0.0.1 that was free a moment ago (the kernel's choice for a socket bound to port 0).
public func freeLoopbackPort() throws -> UInt16 {
    let (fd, port) = try LoopbackSocket.bound(listening: false)
    close(fd)
    return port
}

/// A port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`): for a server that a test restarts on the same port. A port from the
/// ephemeral range can be taken while the server is down as the local port of any outgoing connection (this test
/// process's own clients included), and the restarted server's `bind` then fails with `EADDRINUSE`.
public func restartableLoopbackPort() throws -> UInt16 {
    let ephemeralLow = ephemeralPortRangeStart() ?? 32768
    let range = 10_000..<max(10_001, min(ephemeralLow, 65_536))
    for _ in 0..<200 {
        let port = UInt16(Int.random(in: range))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackSocket.Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        close(fd)
        if bound { return port }
    }
    throw LoopbackSocket.Failure(description: "no free port below the ephemeral range")
}

/// The first port of the kernel's ephemeral range, or nil when it cannot be read.
private func ephemeralPortRangeStart() -> Int? {
    let fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return nil }
    let text = String(decoding: buffer[0..<count], as: UTF8.self)
    return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) }
}
