import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fake systemd notification socket: an `AF_UNIX` datagram socket that records what the daemon sends to
/// `$NOTIFY_SOCKET`.
///
/// Not `Sendable`: one test owns it.
final class NotifySocket {
    /// The value for `NOTIFY_SOCKET` (a path, or `@name` for an abstract socket).
    let address: String
    private let fd: Int32
    /// Every message received so far, in order.
    private(set) var messages: [String] = []

    enum NotifySocketError: Error, CustomStringConvertible {
        case system(String, Int32)
        case timedOut(waitingFor: String, received: [String])

        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .timedOut(let what, let received): "no \(what) within the time limit; received: \(received)"
            }
        }
    }

    /// Binds a socket at `path`, or at an abstract name when `abstract` is true.
    init(path: String, abstract: Bool = false) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NotifySocketError.system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if abstract { bytes.insert(0, at: 0) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count + (abstract ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw NotifySocketError.system("bind", code)
        }
        self.fd = fd
        self.address = abstract ? "@" + path : path
    }

    deinit {
        Glibc.close(fd)
    }

    /// The next message, or `nil` when none arrives within `timeoutSeconds`.
    func receive(timeoutSeconds: Double) -> String? {
        var timeout = timeval(
            tv_sec: Int(timeoutSeconds),
            tv_usec: Int((timeoutSeconds.truncatingRemainder(dividingBy: 1)) * 1_000_000)
        )
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        let message = String(decoding: buffer[0..<count], as: UTF8.self)
        messages.append(message)
        return message
    }

    /// Receives until a message has the assignment `assignment` (such as `READY=1`) among its lines.
    ///
    /// - Returns: The messages received meanwhile, that one included.
    @discardableResult
    func waitFor(_ assignment: String, timeoutSeconds: Double = 30) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var received: [String] = []
        while Date() < deadline {
            guard let message = receive(timeoutSeconds: max(0.05, deadline.timeIntervalSinceNow)) else { continue }
            received.append(message)
            if Self.assignments(message).contains(assignment) { return received }
        }
        throw NotifySocketError.timedOut(waitingFor: assignment, received: messages)
    }

    /// The lines of a message.
    static func assignments(_ message: String) -> [String] {
        message.split(separator: "\n").map(String.init)
    }
}
