import CEventPoll

/// Configuration of an `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
    /// Where to listen.
    public var listeners: [ListenAddress]
    /// Resource limits (changeable later with `HTTPServer.setLimits(_:)`).
    public var limits: HTTPLimits
    /// Default time that `shutdown` lets in-flight requests finish before closing their connections.
    public var shutdownGracePeriod: Duration
    /// Value of the `Server` response field, or `nil` to send none.
    public var serverHeader: String?
    /// Number of threads that run handlers: at most this many requests are handled at the same time (more wait
    /// in a queue, while their connections' I/O and timeouts go on).
    public var handlerThreadCount: Int
    /// Number of event loops serving the connections' I/O (and the requests the handler answers on the loop);
    /// the default is the number of CPU cores available.
    public var eventLoopCount: Int

    /// Creates a configuration.
    public init(
        listeners: [ListenAddress] = [.tcp(host: "127.0.0.1", port: 8080)],
        limits: HTTPLimits = HTTPLimits(),
        shutdownGracePeriod: Duration = .seconds(10),
        serverHeader: String? = nil,
        handlerThreadCount: Int = 64,
        eventLoopCount: Int = HTTPServerConfiguration.defaultEventLoopCount
    ) {
        self.listeners = listeners
        self.limits = limits
        self.shutdownGracePeriod = shutdownGracePeriod
        self.serverHeader = serverHeader
        self.handlerThreadCount = handlerThreadCount
        self.eventLoopCount = eventLoopCount
    }

    /// One loop per CPU core available to the process (its affinity mask), at least one.
    public static var defaultEventLoopCount: Int {
        Int(cep_available_cpu_count())
    }
}

/// A place to listen for connections.
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// A TCP address: an IPv4 or IPv6 literal, or `"localhost"` (IPv4 loopback); port 0 picks a free port.
    case tcp(host: String, port: UInt16)
    /// A Unix domain socket path; a stale socket file there is replaced.
    case unix(path: String)
    /// An already listening socket inherited from the parent (systemd socket activation); it is made non-blocking.
    case fileDescriptor(Int32)

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .fileDescriptor(let fd): "fd:\(fd)"
        }
    }
}

/// An address the server actually listens on, after `start()`.
public enum BoundAddress: Sendable, Hashable, CustomStringConvertible {
    /// A TCP address with its real port (port 0 resolved).
    case tcp(host: String, port: UInt16)
    /// A Unix domain socket path.
    case unix(path: String)

    /// The TCP port, if this is a TCP address.
    public var port: UInt16? {
        if case .tcp(_, let port) = self { return port }
        return nil
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
