/// A small blocking HTTP/1.1 client over one TCP connection, for end-to-end tests.
///
/// It keeps the connection alive between requests (and counts how many it opened, so tests can check reuse),
/// frames response bodies by `Content-Length`, chunked coding or connection close (RFC 9112 §6.3), and never hangs:
/// every socket call has a timeout (SO_RCVTIMEO/SO_SNDTIMEO). ``sendRaw(_:)`` and ``readResponse(requestMethod:)``
/// let tests write malformed or pipelined requests byte by byte.
///
/// Not `Sendable`: one test owns a client. Use one client per concurrent connection.
final class HTTPTestClient {
    let host: String
    let port: UInt16
    /// Bounds connect, every send and every receive.
    var timeoutSeconds: Double

    private var socket: TestSocket?
    /// Bytes received but not yet consumed (pipelined responses arrive back to back).
    private var buffer: [UInt8] = []
    /// Whether the current connection has already carried a complete response (a stale keep-alive candidate).
    private var connectionWasUsed = false
    /// How many TCP connections this client has opened so far.
    private(set) var connectionsOpened = 0

    /// Problems with the response framing or the connection.
    enum ClientError: Error, CustomStringConvertible {
        case connectionClosed(bytesReceived: Int)
        case malformedResponse(String)
        case invalidBaseURL(String)

        var description: String {
            switch self {
            case .connectionClosed(let count): "connection closed by the server after \(count) bytes of a response"
            case .malformedResponse(let reason): "malformed HTTP response: \(reason)"
            case .invalidBaseURL(let url): "not an http://HOST:PORT URL: \(url)"
            }
        }
    }

    /// The largest response head accepted, so a server that never ends its head cannot exhaust memory.
    private static let maximumHeadBytes = 1 << 20

    init(host: String, port: UInt16, timeoutSeconds: Double = 10) {
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    /// A client for a base URL such as `http://127.0.0.1:8080` or `http://[::1]:8080` (numeric hosts only).
    convenience init(baseURL: String, timeoutSeconds: Double = 10) throws {
        guard baseURL.hasPrefix("http://") else { throw ClientError.invalidBaseURL(baseURL) }
        var authority = baseURL.dropFirst("http://".count)
        if let slash = authority.firstIndex(of: "/") { authority = authority[..<slash] }
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...])
        else { throw ClientError.invalidBaseURL(baseURL) }
        self.init(host: String(authority[..<colon]), port: port, timeoutSeconds: timeoutSeconds)
    }

    deinit {
        socket?.close()
    }

    /// True while a connection is open (it may still have been closed by the peer without our noticing yet).
    var isConnected: Bool { socket != nil }

    /// Closes the connection; the next request opens a new one.
    func close() {
        socket?.close()
        socket = nil
        buffer.removeAll()
        connectionWasUsed = false
    }

    // MARK: Requests

    /// Sends one request and reads its response, reusing the open connection when there is one.
    ///
    /// Adds `Host` and, when there is a body, `Content-Length` unless `headers` already has them. If a reused
    /// keep-alive connection turns out to have been closed by the server before any byte of the response arrived,
    /// the request is sent once more on a new connection (what browsers and curl do for idle connections).
    func request(
        method: String,
        path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) throws -> HTTPTestResponse {
        let bytes = Self.serializeRequest(method: method, path: path, host: hostHeader, headers: headers, body: body)
        let reused = socket != nil && connectionWasUsed
        do {
            try sendRaw(bytes)
            return try readResponse(requestMethod: method)
        } catch let error where reused && Self.isStaleConnectionError(error) {
            close()
            try sendRaw(bytes)
            return try readResponse(requestMethod: method)
        }
    }

    /// `GET path`.
    func get(_ path: String, headers: [(String, String)] = []) throws -> HTTPTestResponse {
        try request(method: "GET", path: path, headers: headers)
    }

    /// `POST path` with a JSON body and `Content-Type: application/json`.
    func postJSON(_ path: String, _ json: JSONValue, headers: [(String, String)] = []) throws -> HTTPTestResponse {
        try postJSON(path, text: json.serialized, headers: headers)
    }

    /// `POST path` with the given JSON text as body (it may be deliberately malformed).
    func postJSON(_ path: String, text: String, headers: [(String, String)] = []) throws -> HTTPTestResponse {
        var allHeaders = headers
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            allHeaders.append(("Content-Type", "application/json"))
        }
        return try request(method: "POST", path: path, headers: allHeaders, body: Array(text.utf8))
    }

    // MARK: Raw access

    /// Writes bytes as they are, opening a connection first if none is open.
    func sendRaw(_ bytes: some Collection<UInt8>) throws {
        try connectIfNeeded().sendAll(bytes)
    }

    /// Writes a string's UTF-8 bytes as they are (write `\r\n` yourself).
    func sendRaw(_ text: String) throws {
        try sendRaw(Array(text.utf8))
    }

    /// Reads the next complete response from the connection.
    ///
    /// Interim `1xx` responses (such as `100 Continue`) are skipped unless `includeInterim` is true.
    /// - Parameter requestMethod: the method of the request being answered; a `HEAD` response has no body.
    func readResponse(requestMethod: String = "GET", includeInterim: Bool = false) throws -> HTTPTestResponse {
        while true {
            let response = try readOneResponse(requestMethod: requestMethod)
            if (100..<200).contains(response.status) && response.status != 101 && !includeInterim { continue }
            connectionWasUsed = true
            if response.closesConnection && !(100..<200).contains(response.status) {
                // Keep unread bytes out of the next connection; the server is closing this one.
                close()
            }
            return response
        }
    }

    /// Reads until the server closes the connection and returns whatever arrived (the bytes after the last
    /// consumed response). Throws on timeout, so a test can assert that the server did close.
    func readUntilClosed() throws -> [UInt8] {
        guard let socket else { return buffer }
        var collected = buffer
        buffer.removeAll()
        while true {
            let chunk = try socket.receive()
            if chunk.isEmpty { break }
            collected += chunk
        }
        close()
        return collected
    }

    // MARK: Internals

    private var hostHeader: String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private func connectIfNeeded() throws -> TestSocket {
        if let socket { return socket }
        let socket = try TestSocket.connect(host: host, port: port, timeoutSeconds: timeoutSeconds)
        self.socket = socket
        connectionsOpened += 1
        connectionWasUsed = false
        buffer.removeAll()
        return socket
    }

    private static func isStaleConnectionError(_ error: any Error) -> Bool {
        if case ClientError.connectionClosed(let count) = error { return count == 0 }
        if case TestSocket.SocketError.system(let call, _) = error { return call == "send" || call == "recv" }
        return false
    }

    static func serializeRequest(
        method: String,
        path: String,
        host: String,
        headers: [(String, String)],
        body: [UInt8]?
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("host") { head += "Host: \(host)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body, !names.contains("content-length"), !names.contains("transfer-encoding") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    /// Receives more bytes into the buffer; throws `connectionClosed` at end of stream.
    private func fill(responseBytesSoFar: Int) throws {
        guard let socket else { throw ClientError.connectionClosed(bytesReceived: responseBytesSoFar) }
        let chunk = try socket.receive()
        if chunk.isEmpty {
            // Keep the buffered bytes: a body delimited by connection close is still to be returned.
            socket.close()
            self.socket = nil
            throw ClientError.connectionClosed(bytesReceived: responseBytesSoFar)
        }
        buffer += chunk
    }

    private func readOneResponse(requestMethod: String) throws -> HTTPTestResponse {
        guard socket != nil || !buffer.isEmpty else { throw ClientError.connectionClosed(bytesReceived: 0) }
        // The head ends at the first empty line (RFC 9112 §2.1).
        var headEnd: Int?
        var searchFrom = 0
        while headEnd == nil {
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                headEnd = end
                break
            }
            searchFrom = max(0, buffer.count - 3)
            guard buffer.count <= Self.maximumHeadBytes else { throw ClientError.malformedResponse("head too large") }
            try fill(responseBytesSoFar: buffer.count)
        }
        let headBytes = Array(buffer[..<headEnd!])
        buffer.removeFirst(headEnd! + 4)
        var consumed = headBytes.count + 4

        // "\r\n" is one Character (a grapheme cluster), so this splits at CRLF.
        let lines = String(decoding: headBytes, as: UTF8.self)
            .split(separator: "\r\n" as Character, omittingEmptySubsequences: false).map(String.init)
        let statusParts = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]),
            statusParts[1].count == 3
        else { throw ClientError.malformedResponse("bad status line: \(lines[0])") }
        let headers = try Self.parseFields(lines.dropFirst())

        var response = HTTPTestResponse(
            status: status,
            reason: statusParts.count > 2 ? String(statusParts[2]) : "",
            version: String(statusParts[0]),
            headers: headers,
            trailers: [],
            body: []
        )

        // RFC 9112 §6.3: message body length.
        if requestMethod == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 {
            return response
        }
        let transferCodings = response.headerValues("Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces().lowercased() }
        if let last = transferCodings.last {
            guard last == "chunked" else {
                response.body = try readUntilEndOfStream(consumed: &consumed)
                return response
            }
            try readChunkedBody(into: &response, consumed: &consumed)
            return response
        }
        if let lengthText = response.header("Content-Length") {
            let lengths = Set(lengthText.split(separator: ",").map { $0.trimmingSpaces() })
            guard lengths.count == 1, let length = Int(lengths.first!), length >= 0 else {
                throw ClientError.malformedResponse("bad Content-Length: \(lengthText)")
            }
            response.body = try readExactly(length, consumed: &consumed)
            return response
        }
        response.body = try readUntilEndOfStream(consumed: &consumed)
        return response
    }

    private static func parseFields(_ lines: some Sequence<String>) throws -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw ClientError.malformedResponse("header line without ':': \(line)")
            }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        return fields
    }

    private func readExactly(_ count: Int, consumed: inout Int) throws -> [UInt8] {
        while buffer.count < count {
            try fill(responseBytesSoFar: consumed + buffer.count)
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        consumed += count
        return bytes
    }

    private func readLine(consumed: inout Int) throws -> String {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10], in: buffer, from: searchFrom) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                consumed += end + 2
                return line
            }
            searchFrom = max(0, buffer.count - 1)
            guard buffer.count <= Self.maximumHeadBytes else { throw ClientError.malformedResponse("line too long") }
            try fill(responseBytesSoFar: consumed + buffer.count)
        }
    }

    private func readChunkedBody(into response: inout HTTPTestResponse, consumed: inout Int) throws {
        // RFC 9112 §7.1: chunk-size [; chunk-ext] CRLF data CRLF ... 0 CRLF trailer-section CRLF
        while true {
            let sizeLine = try readLine(consumed: &consumed)
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingSpaces()
            guard !sizeText.isEmpty, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw ClientError.malformedResponse("bad chunk size line: \(sizeLine)")
            }
            if size == 0 { break }
            response.body += try readExactly(size, consumed: &consumed)
            guard try readLine(consumed: &consumed).isEmpty else {
                throw ClientError.malformedResponse("chunk data not followed by CRLF")
            }
        }
        var trailerLines: [String] = []
        while true {
            let line = try readLine(consumed: &consumed)
            if line.isEmpty { break }
            trailerLines.append(line)
        }
        response.trailers = try Self.parseFields(trailerLines)
    }

    private func readUntilEndOfStream(consumed: inout Int) throws -> [UInt8] {
        while true {
            do {
                try fill(responseBytesSoFar: consumed + buffer.count)
            } catch ClientError.connectionClosed {
                break
            }
        }
        let bytes = buffer
        buffer.removeAll()
        consumed += bytes.count
        return bytes
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0] && Array(haystack[index..<index + needle.count]) == needle {
                return index
            }
            index += 1
        }
        return nil
    }
}
