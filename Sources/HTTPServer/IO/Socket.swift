import Glibc

/// Socket operations on raw descriptors, all through `SystemCall`.
enum Socket {
    /// Creates a non-blocking listening socket for `address`.
    static func listen(
        on address: ListenAddress,
        backlog: Int32
    ) throws(HTTPServerError) -> (
        fd: Int32, bound: BoundAddress
    ) {
        switch address {
        case .tcp(let host, let port):
            return try listenTCP(host: host, port: port, backlog: backlog)
        case .unix(let path):
            return try listenUnix(path: path, backlog: backlog)
        case .fileDescriptor(let fd):
            try setNonBlocking(fd)
            try setCloseOnExec(fd)
            return (fd, try localAddress(of: fd))
        }
    }

    private static func listenTCP(
        host: String,
        port: UInt16,
        backlog: Int32
    ) throws(HTTPServerError) -> (
        fd: Int32, bound: BoundAddress
    ) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = port.bigEndian
                address.pointee.sin_addr = v4
            }
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = port.bigEndian
                address.pointee.sin6_addr = v6
            }
        } else {
            throw HTTPServerError(code: .invalidAddress, message: "not an IPv4 or IPv6 literal: \(host)")
        }
        let fd = try SystemCall.check("socket") {
            socket(
                family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                0
            )
        }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, name: "setsockopt(SO_REUSEADDR)")
            if family == AF_INET6 {
                // An explicit IPv6 address listens on IPv6 only; IPv4 is configured as its own listener.
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, name: "setsockopt(IPV6_V6ONLY)")
            }
            try SystemCall.check("bind") {
                withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
                }
            }
            try SystemCall.check("listen") { Glibc.listen(fd, backlog) }
            return (fd, try localAddress(of: fd))
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    private static func listenUnix(
        path: String,
        backlog: Int32
    ) throws(HTTPServerError) -> (
        fd: Int32, bound: BoundAddress
    ) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity, !pathBytes.contains(0) else {
            throw HTTPServerError(
                code: .invalidAddress,
                message: "unix socket path empty or longer than \(capacity - 1) bytes"
            )
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        // A socket file left by a previous run would make bind fail; anything that is not a socket is left alone.
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw HTTPServerError(code: .invalidAddress, message: "\(path) exists and is not a socket")
            }
            _ = unlink(path)
        }
        let fd = try SystemCall.check("socket") {
            socket(
                AF_UNIX,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                0
            )
        }
        do {
            try SystemCall.check("bind") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            try SystemCall.check("listen") { Glibc.listen(fd, backlog) }
            return (fd, .unix(path: path))
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec descriptor.
    static func accept(_ listener: Int32) throws(HTTPServerError) -> IOResult<(fd: Int32, peer: String?)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // accept4 is not exported by the Glibc module, so the flags are set right after accept.
        let result = try SystemCall.run("accept") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
            }
        }
        guard case .done(let fd) = result else { return .wouldBlock }
        do {
            try setNonBlocking(fd)
            try setCloseOnExec(fd)
        } catch {
            SystemCall.close(fd)
            throw error
        }
        return .done((fd, describe(&storage)))
    }

    /// Reads into `buffer`; `.done(0)` is end of stream.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(HTTPServerError) -> IOResult<Int> {
        try SystemCall.run("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// Sends without raising `SIGPIPE` when the peer is gone.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(HTTPServerError) -> IOResult<Int> {
        try SystemCall.run("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Ends the connection in both directions without closing the descriptor (it stays valid for its sources).
    static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    static func setNoDelay(_ fd: Int32) {
        // Only meaningful for TCP; on a Unix socket the call fails harmlessly.
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    static func setNonBlocking(_ fd: Int32) throws(HTTPServerError) {
        let flags = try SystemCall.check("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        try SystemCall.check("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    static func setCloseOnExec(_ fd: Int32) throws(HTTPServerError) {
        let flags = try SystemCall.check("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
        try SystemCall.check("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    private static func setOption(
        _ fd: Int32,
        _ level: Int32,
        _ option: Int32,
        _ value: Int32,
        name: String
    )
        throws(HTTPServerError)
    {
        var value = value
        try SystemCall.check(name) { setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// The local address of a listening socket (resolves port 0).
    static func localAddress(of fd: Int32) throws(HTTPServerError) -> BoundAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try SystemCall.check("getsockname") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        switch Int32(storage.ss_family) {
        case AF_INET, AF_INET6:
            let (host, port) = hostAndPort(&storage)
            return .tcp(host: host, port: port)
        case AF_UNIX:
            let path = withUnsafeBytes(of: &storage) { raw -> String in
                let pathOffset = MemoryLayout<sa_family_t>.size
                let bytes = raw[pathOffset..<min(raw.count, Int(length))].prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            return .unix(path: path)
        default:
            throw HTTPServerError(code: .invalidAddress, message: "inherited descriptor is not an IP or Unix socket")
        }
    }

    private static func hostAndPort(_ storage: inout sockaddr_storage) -> (String, UInt16) {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                _ = inet_ntop(AF_INET, &address.pointee.sin_addr, &text, socklen_t(text.count))
                return (Self.string(fromCString: text), UInt16(bigEndian: address.pointee.sin_port))
            }
        case AF_INET6:
            return withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                _ = inet_ntop(AF_INET6, &address.pointee.sin6_addr, &text, socklen_t(text.count))
                return (Self.string(fromCString: text), UInt16(bigEndian: address.pointee.sin6_port))
            }
        default:
            return ("", 0)
        }
    }

    private static func string(fromCString characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A peer address for logs and `HTTPRequest.remoteAddress`.
    private static func describe(_ storage: inout sockaddr_storage) -> String? {
        switch Int32(storage.ss_family) {
        case AF_INET:
            let (host, port) = hostAndPort(&storage)
            return "\(host):\(port)"
        case AF_INET6:
            let (host, port) = hostAndPort(&storage)
            return "[\(host)]:\(port)"
        case AF_UNIX:
            return "unix"
        default:
            return nil
        }
    }
}

extension Socket {
    /// Makes `close` send a reset instead of a clean end of stream (SO_LINGER with a zero timeout).
    static func setAbortiveClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}
