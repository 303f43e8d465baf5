import Testing

@testable import HTTPServer

/// `HTTP2Settings` is data; its defaults are documented (`docs/configuration.md`: `listen.http2`,
/// `limits.http2_max_concurrent_streams`, `limits.http2_initial_window_size`) and must stay within what HTTP/2 and
/// the server allow.
@Suite struct HTTP2SettingsTests {
    @Test func defaults_areTheDocumentedOnes() {
        let settings = HTTP2Settings()
        #expect(settings.enabled)
        #expect(settings.maxConcurrentStreams == 100)
        #expect(settings.initialWindowSize == 1_048_576)
    }

    /// The window is within RFC 9113 §6.5.2 (65,535 to 2³¹ − 1); the flood budgets can be spent and refill.
    @Test func defaults_areWithinTheProtocolsBounds() {
        let settings = HTTP2Settings()
        #expect((65_535...Int(Int32.max)).contains(settings.initialWindowSize))
        #expect(settings.maxStreamsOnHandlerThreads >= 1)
        #expect(settings.controlFrameBurst >= 1 && settings.controlFrameRate >= 1)
        #expect(settings.resetBurst >= 1 && settings.resetRate >= 1)
    }

    @Test func equality_seesEveryField() {
        let defaults = HTTP2Settings()
        let changes: [(inout HTTP2Settings) -> Void] = [
            { $0.enabled = false }, { $0.maxConcurrentStreams += 1 }, { $0.maxStreamsOnHandlerThreads += 1 },
            { $0.initialWindowSize += 1 }, { $0.controlFrameBurst += 1 }, { $0.controlFrameRate += 1 },
            { $0.resetBurst += 1 }, { $0.resetRate += 1 },
        ]
        for change in changes {
            var settings = HTTP2Settings()
            change(&settings)
            #expect(settings != defaults)
        }
    }
}
