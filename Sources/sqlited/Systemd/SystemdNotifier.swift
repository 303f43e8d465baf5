import Foundation
import Glibc

/// Sends state changes to the service manager with the `sd_notify` protocol.
///
/// A message is one datagram of `KEY=value` lines to the `AF_UNIX` socket named by `$NOTIFY_SOCKET` (a path, or an
/// abstract name written with a leading `@`). Without the variable every call does nothing, so the daemon runs the
/// same way outside systemd.
///
/// Related documentation: <https://www.freedesktop.org/software/systemd/man/latest/sd_notify.html>
struct SystemdNotifier: Sendable {
    /// The socket address, or `nil` when not started by a service manager that listens.
    let socketPath: String?

    /// Reads `NOTIFY_SOCKET` from `environment`.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        // sun_path holds 108 bytes; only absolute paths and abstract names are valid (sd_notify rejects others).
        if (path.hasPrefix("/") || path.hasPrefix("@")) && path.utf8.count < 108 {
            socketPath = path
        } else {
            socketPath = nil
        }
    }

    /// Whether messages go anywhere.
    var isEnabled: Bool { socketPath != nil }

    /// Sends `state` (newline-separated assignments such as `READY=1\nSTATUS=serving`).
    ///
    /// - Returns: Whether the datagram was sent; a failure is not fatal to the daemon (the manager may be gone), so
    ///   callers log it at most.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        // An abstract name's length counts exactly its bytes; a path's includes the terminating NUL.
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + pathBytes.count + (pathBytes[0] == 0 ? 0 : 1)
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    var result: Int
                    repeat {
                        result = sendto(
                            fd,
                            bytes.baseAddress,
                            bytes.count,
                            Int32(MSG_NOSIGNAL),
                            socketAddress,
                            socklen_t(length)
                        )
                    } while result < 0 && errno == EINTR
                    return result
                }
            }
        }
        return sent == message.count
    }

    /// `MONOTONIC_USEC=…`: the time of a reload request, which systemd wants beside `RELOADING=1`.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
