import HTTPServer

extension DaemonConfiguration {
    /// `listen.http2`, `limits.http2_max_concurrent_streams` and `limits.http2_initial_window_size`, into `limits`
    /// (all three apply to connections accepted after a reload).
    static func loadHTTP2(from values: LayeredConfiguration, into limits: inout HTTPLimits) throws(ConfigurationError) {
        limits.http2.enabled = try values.bool("listen.http2", default: limits.http2.enabled)
        limits.http2.maxConcurrentStreams = try values.int(
            "limits.http2_max_concurrent_streams",
            default: limits.http2.maxConcurrentStreams,
            range: 1...10_000
        )
        limits.http2.initialWindowSize = try values.int(
            "limits.http2_initial_window_size",
            default: limits.http2.initialWindowSize,
            range: 65_535...Int(Int32.max)
        )
    }
}
