import HTTPServer
import SQLiteService

#if canImport(Glibc)
import Glibc
#endif

/// Which listen addresses other machines can reach: the daemon refuses to serve them without authentication unless
/// `auth.allow_unauthenticated_remote` is true.
enum ListenerExposure {
    /// A text form of `address` when it is reachable from other machines, `nil` when it is loopback-only or local.
    ///
    /// A TCP host is judged by ``isLoopback(host:)`` (so `0.0.0.0`, `::` and host names count as remote). An
    /// inherited socket (systemd socket activation) is judged by its bound address (`getsockname(2)`): `AF_INET` or
    /// `AF_INET6` on a non-loopback address is remote, `AF_UNIX` is local. A descriptor that cannot be inspected
    /// counts as remote, so that a doubt never opens the database to the network.
    static func remoteDescription(of address: ListenAddress) -> String? {
        switch address {
        case .tcp(let host, _):
            return isLoopback(host: host) ? nil : address.description
        case .unix:
            return nil
        case .fileDescriptor(let fd):
            switch boundAddress(of: fd) {
            case .ip(let host): return isLoopback(host: host) ? nil : "\(address) (\(host))"
            case .local: return nil
            case .unknown: return "\(address) (unknown address)"
            }
        }
    }

    /// What a socket is bound to.
    private enum BoundAddress {
        /// An IPv4 or IPv6 socket bound to this numeric host.
        case ip(String)
        /// A socket of another family (`AF_UNIX`).
        case local
        /// `getsockname` failed.
        case unknown
    }

    private static func boundAddress(of fd: Int32) -> BoundAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return .unknown }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }.sin_addr
            guard inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil else { return .unknown }
        case AF_INET6:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }.sin6_addr
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return .unknown }
        default:
            return .local
        }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return .ip(text)
    }
}
