import Testing

@testable import HTTPServer

/// `HTTPLimits` is data, but its defaults are a contract (`docs/api.md`, "Limits"; `docs/configuration.md`): these
/// tests hold the defaults to the documented values, so changing one is a decision, not an accident.
@Suite struct HTTPLimitsTests {
    @Test func defaults_areTheDocumentedOnes() {
        let limits = HTTPLimits()
        #expect(limits.maxBodySize == 10_485_760)
        #expect(limits.maxHeadSize == 16_384)
        #expect(limits.maxHeaderCount == 100)
        #expect(limits.maxTargetLength == 8192)
        #expect(limits.headTimeout == .seconds(10))
        #expect(limits.bodyInactivityTimeout == .seconds(10))
        #expect(limits.idleTimeout == .seconds(60))
        #expect(limits.sendTimeout == .seconds(60))
        #expect(limits.streamStallTimeout == .seconds(30))
        #expect(limits.maxConnections == 1024)
        #expect(limits.http2 == HTTP2Settings())
    }

    /// The defaults no document names, as the server has shipped them.
    @Test func undocumentedDefaults_areAsShipped() {
        let limits = HTTPLimits()
        #expect(limits.maxChunkLineLength == 4096)
        #expect(limits.listenBacklog == 511)
        #expect(limits.maxStreamBuffer == 65_536)
        #expect(limits.maxPendingOutput == 262_144)
    }

    /// Equality and hashing see every field, the nested HTTP/2 settings included.
    @Test func equality_seesEveryField() {
        var changed = HTTPLimits()
        #expect(changed == HTTPLimits())
        changed.idleTimeout = .seconds(61)
        #expect(changed != HTTPLimits())
        var nested = HTTPLimits()
        nested.http2.resetRate += 1
        #expect(nested != HTTPLimits())
        #expect(Set([HTTPLimits(), HTTPLimits(), changed, nested]).count == 3)
    }
}
