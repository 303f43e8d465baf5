import Glibc

/// A connected TCP socket whose reads and writes block the caller until done or until a deadline, never longer.
///
/// The descriptor is non-blocking underneath and every wait is a `poll(2)` bounded by the time left, so a silent
/// peer costs at most the deadline. Writes use `MSG_NOSIGNAL` (a closed peer is an error, not a `SIGPIPE`).
/// Reads go through a receive buffer: one `recv(2)` takes what has arrived (a message's header and body, or
/// several messages), and a read that finds the buffer short waits with `poll(2)` first, since an answer is never
/// there the moment its request was sent (two system calls per answer, where reading header and body apart and
/// trying before waiting took four).
/// Not thread-safe: one ``DqliteConnection`` owns it.
final class TCPSocket {
    private var fd: Int32
    /// Bytes received and not yet read: `received[consumed...]`.
    private var received: [UInt8] = []
    private var consumed = 0
    /// Where one `recv(2)` writes, at most 32 KiB (a larger message takes several).
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 1)

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// Connects to `"<IPv4>:<port>"`, `"[<IPv6>]:<port>"` or `"localhost:<port>"`, the forms dqlite addresses take.
    static func connect(to address: String, deadline: ContinuousClock.Instant) throws(DqliteError) -> TCPSocket {
        var storage = try socketAddress(address)
        let family = Int32(storage.ss_family)
        let length = socklen_t(
            family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
        )
        let fd = try SystemCall.check("socket") {
            Glibc.socket(
                family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                0
            )
        }
        let connected = TCPSocket(fd: fd)
        let started = try SystemCall.run("connect") {
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
        }
        if case .wouldBlock = started {
            try connected.wait(for: Int16(POLLOUT), until: deadline, "connect to \(address)")
            var code: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            try SystemCall.check("getsockopt(SO_ERROR)") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size) }
            guard code == 0 else { throw SystemCall.failure("connect to \(address)", code) }
        }
        // Requests and responses are small and strictly alternate: Nagle's delay would add to every round trip.
        var one: Int32 = 1
        try SystemCall.check("setsockopt(TCP_NODELAY)") {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        return connected
    }

    /// Writes every byte of `bytes` before `deadline`.
    ///
    /// - Throws: ``DqliteError`` `.io` or `.timeout`, with ``DqliteError/requestNotSent`` set when not one byte
    ///   was written.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(DqliteError) {
        var written = 0
        do {
            while written < bytes.count {
                let fd = self.fd
                let result = try SystemCall.run("send") {
                    bytes.withUnsafeBytes { raw in
                        send(fd, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
                    }
                }
                switch result {
                case .done(let count): written += count
                case .wouldBlock: try wait(for: Int16(POLLOUT), until: deadline, "send")
                }
            }
        } catch {
            var error = error
            error.requestNotSent = written == 0
            throw error
        }
    }

    /// Whether the peer closed the connection or sent something: a zero-timeout `poll(2)` for input or hang-up.
    ///
    /// Between two requests a dqlite server sends nothing, so on an idle connection either means it is unusable.
    func hasInputOrHangUp() -> Bool {
        guard fd >= 0, consumed == received.count else { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, 0)
            if ready == -1 && errno == EINTR { continue }
            return ready != 0
        }
    }

    /// Reads exactly `count` bytes before `deadline`.
    ///
    /// - Throws: ``DqliteError`` `.connectionClosed` when the peer closes first, `.timeout`, `.io`.
    func read(exactly count: Int, deadline: ContinuousClock.Instant) throws(DqliteError) -> [UInt8] {
        while received.count - consumed < count {
            try receive(deadline: deadline)
        }
        let bytes = Array(received[consumed..<consumed + count])
        consumed += count
        if consumed == received.count {
            received.removeAll(keepingCapacity: true)
            consumed = 0
        }
        return bytes
    }

    /// Acknowledges what was received at once instead of after the delayed-ACK timer (`TCP_QUICKACK`): for a
    /// client that sent several requests in one write and has read an answer with more to come, since the
    /// server's next answer may wait, under Nagle's algorithm, for the acknowledgement of this one (up to 40 ms).
    func acknowledgeNow() {
        guard fd >= 0 else { return }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits until the socket is readable, then appends what one `recv(2)` returns (at least one byte) to the
    /// buffer.
    private func receive(deadline: ContinuousClock.Instant) throws(DqliteError) {
        if consumed > 0 {
            received.removeSubrange(0..<consumed)
            consumed = 0
        }
        while true {
            try wait(for: Int16(POLLIN), until: deadline, "recv")
            let fd = self.fd
            let scratch = self.scratch
            let result = try SystemCall.run("recv") { recv(fd, scratch.baseAddress!, scratch.count, 0) }
            switch result {
            case .done(0):
                throw DqliteError(kind: .connectionClosed, message: "the dqlite server closed the connection")
            case .done(let count):
                received.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                return
            case .wouldBlock:
                continue
            }
        }
    }

    func close() {
        guard fd >= 0 else { return }
        SystemCall.close(fd)
        fd = -1
        received = []
        consumed = 0
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, _ what: String) throws(DqliteError) {
        while true {
            let left = deadline - ContinuousClock.now
            let (seconds, attoseconds) = left.components
            guard left > .zero else { break }
            // Rounded up so that a wait never ends before the deadline it was given.
            let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let result = try SystemCall.run("poll") { poll(&descriptor, 1, Int32(clamping: milliseconds)) }
            if case .done(let ready) = result, ready > 0 {
                return
            }
        }
        throw DqliteError(kind: .timeout, message: "\(what): no progress before the deadline")
    }

    private static func socketAddress(_ address: String) throws(DqliteError) -> sockaddr_storage {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...])
        else {
            throw .invalidArgument("not a <host>:<port> address: \(address)")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if host == "localhost" {
            host = "127.0.0.1"
        }
        var storage = sockaddr_storage()
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let socketAddress = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                socketAddress.pointee.sin_family = sa_family_t(AF_INET)
                socketAddress.pointee.sin_port = port.bigEndian
                socketAddress.pointee.sin_addr = v4
            }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let socketAddress = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                socketAddress.pointee.sin6_family = sa_family_t(AF_INET6)
                socketAddress.pointee.sin6_port = port.bigEndian
                socketAddress.pointee.sin6_addr = v6
            }
        } else {
            throw .invalidArgument("not an IP address literal: \(host) (names are not resolved)")
        }
        return storage
    }
}
