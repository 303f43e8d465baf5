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
            written = withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 1) { buffer in
                var line = LineBuffer(buffer)
                guard line.append(level.rawValue), line.append(" "), line.append(label),
                    line.append(": request bytes="), line.appendDecimal(entry.bytes), line.append(" duration_ms="),
                    line.appendMilliseconds(entry.microseconds), line.append(" method="),
                    line.appendBare(entry.method), line.append(" path="), line.appendBare(entry.path),
                    line.append(" protocol="), line.append(entry.protocolName), line.append(" status="),
                    line.appendDecimal(entry.status), line.append(" token="),
                    line.appendBare(entry.tokenName ?? "-"), line.append("\n")
                else { return false }
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
}

/// Bytes appended to a fixed buffer; every append reports false, appending nothing, when it would not fit or (for
/// ``appendBare(_:)``) when the value needs quoting.
private struct LineBuffer {
    let buffer: UnsafeMutableRawBufferPointer
    var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    var written: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= buffer.count - count else { return false }
        if let source = bytes.baseAddress {
            (buffer.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
        return true
    }

    mutating func append(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// `text` as ``DaemonLogHandler/text(_:)`` writes it when it needs no quotes: non-empty printable ASCII without
    /// a space or a quote. Anything else (which may need quotes) is left to the general path.
    mutating func appendBare(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") })
            else { return false }
            return append(UnsafeRawBufferPointer(bytes))
        }
    }

    /// A non-negative integer in decimal; nil as `-`.
    mutating func appendDecimal(_ value: Int?) -> Bool {
        guard let value else { return append("-") }
        guard value >= 0 else { return false }
        return JSONWriter.withDecimalDigits(UInt64(value)) { append(UnsafeRawBufferPointer($0)) }
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
