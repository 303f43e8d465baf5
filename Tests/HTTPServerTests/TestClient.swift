import Glibc

@testable import HTTPServer

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A response as the test client read it.
struct TestResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A small blocking HTTP client over a raw socket, for tests.
///
/// Reads and writes time out (a safety net: a broken server fails the test instead of hanging it).
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to a server address.
    init(_ address: BoundAddress, timeout: Duration = .seconds(15)) throws {
        switch address {
        case .tcp(let host, let port):
            fd = try Self.connectTCP(host: host, port: port)
        case .unix(let path):
            fd = try Self.connectUnix(path: path)
        }
        var interval = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(fd)
    }

    static func connectTCP(host: String, port: UInt16) throws -> Int32 {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
            guard result == 0 else {
                let error = errno
                Glibc.close(fd)
                throw TestClientError(description: "connect failed: errno \(error)")
            }
            return fd
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TestClientError(description: "connect failed: errno \(error)")
        }
        return fd
    }

    static func connectUnix(path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TestClientError(description: "connect failed: errno \(error)")
        }
        return fd
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw TestClientError(description: "send failed: errno \(errno)")
            }
            offset += sent
        }
    }

    /// Closes the sending side (the server sees end of stream).
    func shutdownWrite() {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads more bytes into the buffer; false at end of stream or reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            throw TestClientError(description: "recv failed or timed out: errno \(errno)")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 0x0A), index > 0, buffer[index - 1] == 0x0D {
                let line = String(decoding: buffer[0..<(index - 1)], as: UTF8.self)
                buffer.removeSubrange(0...index)
                return line
            }
            guard try fill() else { throw TestClientError(description: "connection closed while reading a line") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError(description: "connection closed while reading a body") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeSubrange(0..<count)
        return bytes
    }

    /// Reads one response (a 1xx response is returned on its own).
    func readResponse(forHEAD: Bool = false) throws -> TestResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line: \(statusLine)")
        }
        var headers = HTTPHeaders()
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError(description: "bad field: \(line)") }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...].trimmingOWS()))
        }
        var body: [UInt8] = []
        if forHEAD || (100..<200).contains(status) || status == 204 || status == 304 {
            // No content.
        } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) else {
                    throw TestClientError(description: "bad chunk size: \(sizeLine)")
                }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                body += try readExactly(size)
                guard try readLine().isEmpty else { throw TestClientError(description: "chunk without CRLF") }
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            body = try readExactly(length)
        } else {
            body = try readToEnd()
        }
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Reads until the server closes the connection.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server has closed the connection (waits for it, up to the read timeout); any bytes read are
    /// returned too.
    func waitForClose() throws -> Bool {
        while try fill() {}
        return true
    }
}
