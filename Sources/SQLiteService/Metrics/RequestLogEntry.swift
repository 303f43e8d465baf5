public import HTTPServer
public import Logging

/// The fields of one request log line: the path and status only, never the query string, the body or header
/// fields, which may carry bound values or tokens.
public struct RequestLogEntry: Sendable {
    /// The request's method, printable ASCII (see ``SQLiteService/printable(_:)``).
    public let method: String
    /// The request's path without its query string, printable (see ``SQLiteService/printable(_:)``).
    public let path: String
    public let status: Int
    /// The duration in whole microseconds (the line shows milliseconds with three decimals).
    public let microseconds: Int64
    /// The response body's length; nil for a streamed body.
    public let bytes: Int?
    /// The configured name of the token that was used, never the token.
    public let tokenName: String?
    /// The protocol that served the request: `http/1.1`, `http/1.0` or `h2`.
    public let protocolName: String

    public init(
        method: String,
        path: String,
        status: Int,
        duration: Duration,
        bytes: Int?,
        tokenName: String?,
        protocolName: String = "http/1.1"
    ) {
        self.init(
            method: method,
            path: path,
            status: status,
            nanoseconds: duration.clampedNanoseconds,
            bytes: bytes,
            tokenName: tokenName,
            protocolName: protocolName
        )
    }

    /// An entry whose duration is `nanoseconds` (the caller has it already: `Duration.components` divides 128-bit
    /// integers, which is not free once per request, let alone twice).
    public init(
        method: String,
        path: String,
        status: Int,
        nanoseconds: Int64,
        bytes: Int?,
        tokenName: String?,
        protocolName: String
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.microseconds = nanoseconds / 1000
        self.bytes = bytes
        self.tokenName = tokenName
        self.protocolName = protocolName
    }

    /// The `protocol` field's value for a request of `version`.
    public static func protocolName(of version: HTTPVersion) -> String {
        switch version {
        case .http1_0: "http/1.0"
        case .http1_1: "http/1.1"
        case .http2: "h2"
        }
    }

    /// The line's message.
    public static let message: Logger.Message = "request"

    /// The fields as swift-log metadata, for log handlers without a request log path of their own.
    public var metadata: Logger.Metadata {
        let microseconds = microseconds
        let fraction = String(microseconds % 1000)
        let milliseconds = "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        return [
            "method": "\(method)",
            "path": "\(path)",
            "protocol": "\(protocolName)",
            "status": "\(status)",
            "duration_ms": "\(milliseconds)",
            "bytes": "\(bytes.map(String.init) ?? "-")",
            "token": "\(tokenName ?? "-")",
        ]
    }
}

/// A log handler that writes request log lines straight from their fields, once per request, instead of through
/// `Logger.log` with a metadata dictionary built, sorted and formatted for every request. Its lines must read
/// exactly as the ones `log(event:)` writes for ``RequestLogEntry/message`` with ``RequestLogEntry/metadata``.
public protocol RequestLogHandler: LogHandler {
    /// Writes `entry`'s line at `level` (the caller has checked `logLevel`).
    func logRequest(_ entry: RequestLogEntry, level: Logger.Level)
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64` (about 292 years).
    var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (scaled < 0 ? .min : .max) : sum
    }
}
