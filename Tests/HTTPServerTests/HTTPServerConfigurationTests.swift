import Testing

@testable import HTTPServer

/// `HTTPServerConfiguration` defaults to one loopback listener and the contract's limits; its addresses print as a
/// client would write them (an IPv6 host in brackets).
@Suite struct HTTPServerConfigurationTests {
    @Test func defaults() {
        let configuration = HTTPServerConfiguration()
        #expect(configuration.listeners == [.tcp(host: "127.0.0.1", port: 8080)])
        #expect(configuration.limits == HTTPLimits())
        #expect(configuration.shutdownGracePeriod == .seconds(10))
        #expect(configuration.serverHeader == nil)
        #expect(configuration.handlerThreadCount == 64)
        #expect(configuration.eventLoopCount == HTTPServerConfiguration.defaultEventLoopCount)
    }

    @Test func initializer_keepsEveryValueGiven() {
        var limits = HTTPLimits()
        limits.maxConnections = 3
        let configuration = HTTPServerConfiguration(
            listeners: [.unix(path: "/tmp/s.sock"), .fileDescriptor(3)],
            limits: limits,
            shutdownGracePeriod: .milliseconds(5),
            serverHeader: "sqlited",
            handlerThreadCount: 2,
            eventLoopCount: 1
        )
        #expect(configuration.listeners == [.unix(path: "/tmp/s.sock"), .fileDescriptor(3)])
        #expect(configuration.limits.maxConnections == 3)
        #expect(configuration.shutdownGracePeriod == .milliseconds(5))
        #expect(configuration.serverHeader == "sqlited")
        #expect(configuration.handlerThreadCount == 2 && configuration.eventLoopCount == 1)
    }

    /// At least one event loop, and no more than a machine could have cores.
    @Test func defaultEventLoopCount_isAtLeastOne() {
        let count = HTTPServerConfiguration.defaultEventLoopCount
        #expect(count >= 1 && count <= 65_536)
    }

    @Test(arguments: [
        (ListenAddress.tcp(host: "127.0.0.1", port: 8080), "127.0.0.1:8080"),
        (.tcp(host: "localhost", port: 0), "localhost:0"),
        (.tcp(host: "::1", port: 443), "[::1]:443"),
        (.tcp(host: "2001:db8::1", port: 65535), "[2001:db8::1]:65535"),
        (.unix(path: "/run/sqlited.sock"), "unix:/run/sqlited.sock"),
        (.fileDescriptor(3), "fd:3"),
    ])
    func listenAddress_description(address: ListenAddress, text: String) {
        #expect(address.description == text)
    }

    @Test func boundAddress_givesItsPortAndDescription() {
        let v4 = BoundAddress.tcp(host: "127.0.0.1", port: 41_000)
        #expect(v4.port == 41_000 && v4.description == "127.0.0.1:41000")
        let v6 = BoundAddress.tcp(host: "::1", port: 80)
        #expect(v6.port == 80 && v6.description == "[::1]:80")
        let unix = BoundAddress.unix(path: "/tmp/a.sock")
        #expect(unix.port == nil && unix.description == "unix:/tmp/a.sock")
    }
}
