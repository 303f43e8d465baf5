import CDqlite
import Glibc

/// How a node opens its Raft connection to another node (`dqlite_node_set_connect_func`): a TCP connection to the
/// other node's `host:port`, as dqlite's own opens, with `TCP_NODELAY` set, handed over in blocking mode.
///
/// dqlite 1.11's own connect leaves Nagle's algorithm on. Raft's connections are one-way — a node sends on the
/// connection it opened and hears back on the one the other node opened — so the receiver never has data to carry
/// its ACKs and delays them (40 ms); a message written while the previous one is unacknowledged then waits for that
/// ACK. Under a write load through a follower the leader's `AppendEntries` waited 35–40 ms several times a second,
/// the whole cluster idle meanwhile (`perf sched`: 40% of the core idle in such gaps; see docs/performance.md).
///
/// Also unlike dqlite's own, the host may be a name or a bracketed IPv6 address (`[::1]:9001`; dqlite's took IPv4
/// literals only), resolved with `getaddrinfo`, each address tried in turn, and an address that does not answer is
/// given up after ``connectTimeoutMilliseconds``.
enum RaftConnector {
    /// The function given to `dqlite_node_set_connect_func`; called on a libuv worker thread, may block. Returns 0
    /// and the connected socket in `fd`, or `RAFT_NOCONNECTION`.
    static let connect:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<Int32>?
        ) -> Int32 = { _, address, fd in
            guard let address, let fd, let socket = RaftConnector.open(String(cString: address)) else {
                return noConnection
            }
            fd.pointee = socket
            return 0
        }

    /// raft's `RAFT_NOCONNECTION` (raft.h; not re-exported by dqlite.h).
    static let noConnection: Int32 = 16

    /// How long one address is tried. dqlite's own connect waited for the kernel to give up (about two minutes for
    /// a peer whose machine is gone: SYNs unanswered), holding one of libuv's four pool threads, which raft also
    /// writes its log through, and reconnecting only at the next SYN retry once the peer was back; raft tries again
    /// a second after a failure.
    static let connectTimeoutMilliseconds: Int32 = 2000

    /// A connected TCP socket to `address` (`host:port`) with `TCP_NODELAY`, in blocking mode (dqlite writes its
    /// handshake on it so), or nil when no address of it answered within `timeoutMilliseconds` each.
    static func open(_ address: String, timeoutMilliseconds: Int32 = connectTimeoutMilliseconds) -> Int32? {
        guard let (host, port) = split(address) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let info = candidate {
            candidate = info.pointee.ai_next
            if let fd = connect(to: info.pointee, timeoutMilliseconds: timeoutMilliseconds) { return fd }
        }
        return nil
    }

    /// One address: a non-blocking connect waited for with `poll`, then the socket made blocking again.
    private static func connect(to info: addrinfo, timeoutMilliseconds: Int32) -> Int32? {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(info.ai_family, type, 0)
        guard fd >= 0 else { return nil }
        var on: Int32 = 1
        guard setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            close(fd)
            return nil
        }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard errno == EINPROGRESS, poll(&ready, 1, timeoutMilliseconds) == 1,
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0
            else {
                close(fd)
                return nil
            }
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// `host:port` split at the last colon; a bracketed host loses its brackets (`[::1]:9001`). Nil when either
    /// part is empty or the port is not a number.
    static func split(_ address: String) -> (host: String, port: String)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = Substring(address[..<colon])
        let port = address[address.index(after: colon)...]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !port.isEmpty, port.allSatisfy(\.isASCIIDigit) else { return nil }
        return (String(host), String(port))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
