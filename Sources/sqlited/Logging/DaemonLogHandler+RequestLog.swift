import Logging
import SQLiteService

/// The request log's own path: one line per request, formatted straight into a stack buffer and handed to the sink.
///
/// It writes exactly the line ``DaemonLogHandler/line(level:label:message:metadata:format:)`` writes for
/// ``RequestLogEntry/metadata`` (keys in order: bytes, duration_ms, method, path, protocol, status, token), without building,
/// sorting and formatting a metadata dictionary per request, and without a heap allocation. The `json` format, a
/// logger with metadata of its own, a metadata provider, a value that needs quoting or a line longer than the
/// buffer take the general path.
extension DaemonLogHandler: RequestLogHandler {
    func logRequest(_ entry: RequestLogEntry, level: Logger.Level) {
        let written: Bool
        if format == .text, metadata.isEmpty, metadataProvider == nil, let sink {
            written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
                var line = LineBuffer(buffer)
                guard line.append(Self.name(of: level)),
                    requestLinePrefix.withUnsafeBufferPointer({ line.append($0) }),
                    line.appendDecimal(entry.bytes), line.append(" duration_ms="),
                    line.appendMilliseconds(entry.microseconds)
                else { return false }
                // The rest of the line is usually the previous line's (see RequestLineTail).
                let tail = RequestLineTail.current()
                if tail.matches(entry) {
                    guard tail.bytes.withUnsafeBufferPointer({ line.append($0) }) else { return false }
                } else {
                    let start = line.count
                    guard line.append(" method="), line.append(entry.method, bare: true), line.append(" path="),
                        line.append(entry.path, bare: true), line.append(" protocol="),
                        line.append(entry.protocolName), line.append(" status="), line.appendDecimal(entry.status),
                        line.append(" token="), line.append(entry.tokenName ?? "-", bare: true), line.append("\n")
                    else { return false }
                    tail.remember(entry, tail: line.written(from: start))
                }
                sink.append(line.written)
                return true
            }
        } else {
            written = false
        }
        if !written {
            write(level: level, message: RequestLogEntry.message, metadata: entry.metadata)
        }
    }

    /// `level.rawValue` without making a String.
    private static func name(of level: Logger.Level) -> StaticString {
        switch level {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }
}

/// Bytes appended to a fixed buffer; every append reports false, appending nothing, when it would not fit or (for
/// ``appendBare(_:)``) when the value needs quoting.
private struct LineBuffer {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    var written: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)
    }

    /// The bytes written from `start` on.
    func written(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer.baseAddress! + start, count: count - start)
    }

    /// Appends `bytes`; with `bare`, only when they are what ``DaemonLogHandler/text(_:)`` writes without quotes:
    /// non-empty printable ASCII without a space or a quote (anything else is left to the general path).
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, bare: Bool = false) -> Bool {
        guard bytes.count <= buffer.count - count else { return false }
        if bare {
            guard !bytes.isEmpty else { return false }
            for byte in bytes where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") {
                return false
            }
        }
        if let source = bytes.baseAddress {
            (buffer.baseAddress! + count).update(from: source, count: bytes.count)
        }
        count += bytes.count
        return true
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) -> Bool {
        guard literal.hasPointerRepresentation else {
            return literal.withUTF8Buffer { append($0) }
        }
        return append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `text`'s UTF-8 (see ``append(_:bare:)-(UnsafeBufferPointer<UInt8>,_)``); read in place, without copying
    /// the string (a native string's bytes are contiguous).
    @inline(__always)
    mutating func append(_ text: String, bare: Bool = false) -> Bool {
        if let appended = text.utf8.withContiguousStorageIfAvailable({ append($0, bare: bare) }) {
            return appended
        }
        return ContiguousArray(text.utf8).withUnsafeBufferPointer { append($0, bare: bare) }
    }

    /// A non-negative integer in decimal; nil as `-`.
    mutating func appendDecimal(_ value: Int?) -> Bool {
        guard let value else { return append("-") }
        guard value >= 0 else { return false }
        return JSONWriter.withDecimalDigits(UInt64(value)) { append($0) }
    }

    /// Microseconds as milliseconds with three decimals (`12.345`), as ``RequestLogEntry/metadata`` has them.
    mutating func appendMilliseconds(_ microseconds: Int64) -> Bool {
        guard microseconds >= 0, appendDecimal(Int(microseconds / 1000)), count + 4 <= buffer.count else {
            return false
        }
        let fraction = Int(microseconds % 1000)
        buffer[count] = UInt8(ascii: ".")
        buffer[count + 1] = UInt8(truncatingIfNeeded: fraction / 100) &+ UInt8(ascii: "0")
        buffer[count + 2] = UInt8(truncatingIfNeeded: fraction / 10 % 10) &+ UInt8(ascii: "0")
        buffer[count + 3] = UInt8(truncatingIfNeeded: fraction % 10) &+ UInt8(ascii: "0")
        count += 4
        return true
    }
}
