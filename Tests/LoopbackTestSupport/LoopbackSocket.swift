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
