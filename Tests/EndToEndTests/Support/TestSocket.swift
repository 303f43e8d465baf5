#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP socket for tests: every call has a timeout, so a test waiting on a broken server fails instead of
/// hanging the suite.
///
/// Not `Sendable`: one test thread owns it. Closing is idempotent; `deinit` closes too.
final class TestSocket {
    /// The file descriptor, or -1 once closed.
    private(set) var descriptor: Int32

    /// Errors from socket calls, each naming the call and errno.
    enum SocketError: Error, CustomStringConvertible {
        case system(call: String, errno: Int32)
        case invalidAddress(String)
        case timedOut(call: String)
        case closed

        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
            case .invalidAddress(let host): "not a numeric IPv4/IPv6 address: \(host)"
            case .timedOut(let call): "\(call) timed out"
            case .closed: "socket is closed"
            }
        }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Connects to a numeric address (`127.0.0.1`, `::1`); the timeout bounds connect, each send and each receive.
    static func connect(host: String, port: UInt16, timeoutSeconds: Double) throws -> TestSocket {
        var storage = sockaddr_storage()
        let length = try fillAddress(&storage, host: host, port: port)
        let fd = socket(Int32(storage.ss_family), socketStreamType, 0)
        guard fd >= 0 else { throw SocketError.system(call: "socket", errno: errno) }
        let socket = TestSocket(descriptor: fd)
        try socket.setTimeout(seconds: timeoutSeconds)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // A blocking connect honours SO_SNDTIMEO on Linux (EINPROGRESS after the timeout).
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                retryingEINTR { systemConnect(fd, address, length) }
            }
        }
        guard result == 0 else {
            let code = errno
            if code == EINPROGRESS || code == EAGAIN { throw SocketError.timedOut(call: "connect") }
            throw SocketError.system(call: "connect", errno: code)
        }
        return socket
    }

    /// Creates a listening socket on a numeric address; port 0 lets the kernel choose (see ``localPort``).
    static func listen(host: String, port: UInt16 = 0, backlog: Int32 = 64) throws -> TestSocket {
        var storage = sockaddr_storage()
        let length = try fillAddress(&storage, host: host, port: port)
        let fd = socket(Int32(storage.ss_family), socketStreamType, 0)
        guard fd >= 0 else { throw SocketError.system(call: "socket", errno: errno) }
        let socket = TestSocket(descriptor: fd)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw SocketError.system(call: "bind", errno: errno) }
        guard systemListen(fd, backlog) == 0 else { throw SocketError.system(call: "listen", errno: errno) }
        return socket
    }

    /// Accepts one connection, blocking until one arrives or the listener is shut down.
    func accept() throws -> TestSocket {
        guard descriptor >= 0 else { throw SocketError.closed }
        let fd = retryingEINTR { systemAccept(descriptor) }
        guard fd >= 0 else { throw SocketError.system(call: "accept", errno: errno) }
        return TestSocket(descriptor: fd)
    }

    /// The local port this socket is bound to.
    var localPort: UInt16 {
        get throws {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard result == 0 else { throw SocketError.system(call: "getsockname", errno: errno) }
            let family = storage.ss_family
            return withUnsafePointer(to: &storage) { pointer in
                if family == sa_family_t(AF_INET6) {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
            }
        }
    }

    /// Sets SO_RCVTIMEO and SO_SNDTIMEO.
    func setTimeout(seconds: Double) throws {
        var timeout = timeval(
            tv_sec: Int(seconds),
            tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000)
        )
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size) == 0
        else { throw SocketError.system(call: "setsockopt", errno: errno) }
    }

    /// Sends every byte (MSG_NOSIGNAL: a peer that went away is an error, not a SIGPIPE that kills the test runner).
    func sendAll(_ bytes: some Collection<UInt8>) throws {
        guard descriptor >= 0 else { throw SocketError.closed }
        let data = Array(bytes)
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { buffer in
                retryingEINTR {
                    send(descriptor, buffer.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
            if sent < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { throw SocketError.timedOut(call: "send") }
                throw SocketError.system(call: "send", errno: code)
            }
            offset += sent
        }
    }

    /// Receives up to `maximum` bytes; an empty result means the peer closed its side.
    func receive(maximum: Int = 65_536) throws -> [UInt8] {
        guard descriptor >= 0 else { throw SocketError.closed }
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = buffer.withUnsafeMutableBytes { raw in
            retryingEINTR { recv(descriptor, raw.baseAddress, maximum, 0) }
        }
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { throw SocketError.timedOut(call: "recv") }
            throw SocketError.system(call: "recv", errno: code)
        }
        return Array(buffer.prefix(count))
    }

    /// Half-closes or fully shuts the socket down; wakes a thread blocked in `accept` or `recv` on it.
    func shutdown(how: Int32 = Int32(SHUT_RDWR)) {
        guard descriptor >= 0 else { return }
        _ = systemShutdown(descriptor, how)
    }

    /// Closes the descriptor (idempotent).
    func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    private static func fillAddress(_ storage: inout sockaddr_storage, host: String, port: UInt16) throws -> socklen_t {
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return try withUnsafeMutablePointer(to: &storage) { pointer in
            var address4 = sockaddr_in()
            if inet_pton(AF_INET, unbracketed, &address4.sin_addr) == 1 {
                address4.sin_family = sa_family_t(AF_INET)
                address4.sin_port = port.bigEndian
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee = address4 }
                return socklen_t(MemoryLayout<sockaddr_in>.size)
            }
            var address6 = sockaddr_in6()
            if inet_pton(AF_INET6, unbracketed, &address6.sin6_addr) == 1 {
                address6.sin6_family = sa_family_t(AF_INET6)
                address6.sin6_port = port.bigEndian
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee = address6 }
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
            throw SocketError.invalidAddress(host)
        }
    }
}

#if canImport(Glibc)
private let socketStreamType = Int32(SOCK_STREAM.rawValue)
#else
private let socketStreamType = SOCK_STREAM
#endif

/// Repeats a system call while it fails with EINTR.
private func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result < 0 && errno == EINTR { continue }
        return result
    }
}

// Free functions so the calls are not shadowed by this file's methods of the same names.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
    listen(fd, backlog)
}

private func systemAccept(_ fd: Int32) -> Int32 {
    accept(fd, nil, nil)
}

private func systemShutdown(_ fd: Int32, _ how: Int32) -> Int32 {
    shutdown(fd, how)
}

private func systemClose(_ fd: Int32) -> Int32 {
    close(fd)
}
