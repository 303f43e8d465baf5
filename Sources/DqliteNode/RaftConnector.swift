import CDqlite
import Glibc

/// How a node opens its Raft connection to another node (`dqlite_node_set_connect_func`): a blocking TCP connect
/// to the other node's `host:port`, as dqlite's own, with `TCP_NODELAY` set.
///
/// dqlite 1.11's own connect leaves Nagle's algorithm on. Raft's connections are one-way — a node sends on the
/// connection it opened and hears back on the one the other node opened — so the receiver never has data to carry
/// its ACKs and delays them (40 ms); a message written while the previous one is unacknowledged then waits for that
/// ACK. Under a write load through a follower the leader's `AppendEntries` waited 35–40 ms several times a second,
/// the whole cluster idle meanwhile (`perf sched`: 40% of the core idle in such gaps; see docs/performance.md).
///
/// Also unlike dqlite's own (IPv4 literals only), the host may be a name or a bracketed IPv6 address
/// (`[::1]:9001`), resolved with `getaddrinfo`, each address tried in turn.
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

    /// A connected TCP socket to `address` (`host:port`) with `TCP_NODELAY`, or nil.
    static func open(_ address: String) -> Int32? {
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
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var on: Int32 = 1
            let connected =
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
                && Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
            if connected { return fd }
            close(fd)
        }
        return nil
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
