#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `host`, a listen address as written in the configuration or on the command line, reaches only this
/// machine: `localhost`, an IPv4 address in 127.0.0.0/8, `::1`, or `::ffff:127.x.x.x` (an IPv4-mapped loopback
/// address). IPv6 literals may be written in brackets (`[::1]`).
///
/// Anything else is not loopback, including the wildcard addresses `0.0.0.0` and `::`, other host names (they may
/// resolve anywhere), and addresses with a zone (`::1%lo`). The daemon uses it to refuse to listen on a non-loopback
/// address when no token is configured.
///
/// Related: RFC 1122 §3.2.1.3 (127/8), RFC 4291 §2.5.3 (`::1`) and §2.5.5.2 (IPv4-mapped addresses).
public func isLoopback(host: String) -> Bool {
    var text = host
    if text.hasPrefix("["), text.hasSuffix("]") {
        text = String(text.dropFirst().dropLast())
    }
    let lowered = text.lowercased()
    if lowered == "localhost" || lowered == "localhost." { return true }

    var ipv4 = in_addr()
    if inet_pton(AF_INET, text, &ipv4) == 1 {
        // s_addr is in network byte order: the first byte in memory is the first octet.
        return withUnsafeBytes(of: &ipv4) { $0[0] } == 127
    }
    var ipv6 = in6_addr()
    if inet_pton(AF_INET6, text, &ipv6) == 1 {
        let bytes = withUnsafeBytes(of: &ipv6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        return Array(bytes[0..<12]) == mappedPrefix && bytes[12] == 127
    }
    return false
}
