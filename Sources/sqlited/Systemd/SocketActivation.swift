import Foundation
import Glibc

/// Listening sockets passed by systemd (socket activation).
///
/// systemd passes them as descriptors 3, 4, … with `LISTEN_FDS` (their number), `LISTEN_PID` (the process they are
/// meant for: a child that inherits the variables must not take them) and optionally `LISTEN_FDNAMES`
/// (colon-separated names from `FileDescriptorName=`).
///
/// Related documentation: <https://www.freedesktop.org/software/systemd/man/latest/sd_listen_fds.html>
struct SocketActivation: Sendable, Equatable {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: Int32 = 3

    /// An inherited socket.
    struct Socket: Sendable, Equatable {
        let fd: Int32
        /// Its `FileDescriptorName=` (systemd's default is the socket unit's name), or `"unknown"`.
        let name: String
    }

    /// The inherited sockets, in descriptor order; empty when none were passed to this process.
    let sockets: [Socket]

    /// Reads the variables for the process `pid`.
    ///
    /// - Throws: ``ConfigurationError`` when the variables are meant for this process but malformed.
    init(environment: [String: String], pid: Int32) throws(ConfigurationError) {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else {
            sockets = []
            return
        }
        guard Int32(pidText) == pid else {
            // Meant for another process (we inherited the environment): bind as configured.
            sockets = []
            return
        }
        guard let count = Int32(countText), count >= 0, count <= 1024 else {
            throw ConfigurationError(key: nil, source: .environment("LISTEN_FDS"), message: "not a descriptor count")
        }
        var names =
            environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false) }
            ?? []
        if names.count != Int(count) { names = [] }
        sockets = (0..<count).map { index in
            Socket(
                fd: Self.firstDescriptor + index,
                name: names.isEmpty ? "unknown" : String(names[Int(index)])
            )
        }
    }

    /// Reads the process's own environment, then removes the variables (as `sd_listen_fds(1)` does) and marks the
    /// descriptors close-on-exec, so nothing the daemon might start inherits them.
    static func takeFromProcess() throws(ConfigurationError) -> SocketActivation {
        let activation = try SocketActivation(environment: ProcessInfo.processInfo.environment, pid: getpid())
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        for socket in activation.sockets {
            let flags = fcntl(socket.fd, F_GETFD)
            guard flags >= 0 else {
                throw ConfigurationError(
                    key: nil,
                    source: .environment("LISTEN_FDS"),
                    message: "descriptor \(socket.fd) is not open (\(String(cString: strerror(errno))))"
                )
            }
            _ = fcntl(socket.fd, F_SETFD, flags | FD_CLOEXEC)
        }
        return activation
    }
}
