import Foundation
import Logging
import SQLiteService

/// Writes log lines to stderr, where journald (or a terminal) collects them.
///
/// One line per event, handed whole to a ``LogSink`` (which writes from a thread of its own, so that a request's
/// log line never waits for the log reader), or written with a single `write(2)` when there is none; lines from
/// different threads never interleave.
/// The `text` format is `LEVEL label: message key=value …` (journald adds its own timestamp, so a timestamp here
/// would be noise; it is still present in `json`).
struct DaemonLogHandler: LogHandler {
    let label: String
    let format: DaemonConfiguration.LogFormat
    let levelControl: LogLevelControl
    let sink: LogSink?
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// A level set on one logger only; otherwise the shared one applies.
    private var localLevel: Logger.Level?

    /// `" label: request bytes="`, the request log line's constant part after the level (see
    /// ``logRequest(_:level:)``).
    let requestLinePrefix: [UInt8]

    init(label: String, format: DaemonConfiguration.LogFormat, levelControl: LogLevelControl, sink: LogSink? = nil) {
        self.label = label
        self.requestLinePrefix = Array(" \(label): request bytes=".utf8)
        self.format = format
        self.levelControl = levelControl
        self.sink = sink
    }

    var logLevel: Logger.Level {
        get { localLevel ?? levelControl.current }
        set { localLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        write(level: event.level, message: event.message, metadata: event.metadata)
    }

    /// Formats one line with the handler's metadata, the provider's and the event's, and writes it.
    func write(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?) {
        var merged: Logger.Metadata
        if metadata.isEmpty && metadataProvider == nil {
            // The request log's case: only the event's own metadata, used as it is.
            merged = extra ?? [:]
        } else {
            merged = metadata
            if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
            if let extra { merged.merge(extra) { $1 } }
        }
        let line = Self.line(
            level: level,
            label: label,
            message: "\(message)",
            metadata: merged,
            format: format
        )
        if let sink {
            sink.append(line)
        } else {
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// One formatted log line, with its newline.
    static func line(
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata,
        format: DaemonConfiguration.LogFormat
    ) -> String {
        switch format {
        case .text:
            let fields = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\(Self.text($0.value))" }.joined()
            return "\(level) \(label): \(message)\(fields)\n"
        case .json:
            var object = "{\"time\":\(Self.quoted(Self.timestamp())),\"level\":\(Self.quoted(level.rawValue))"
            object += ",\"label\":\(Self.quoted(label)),\"message\":\(Self.quoted(message))"
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
                object += ",\(Self.quoted(key)):\(Self.quoted(Self.text(value)))"
            }
            return object + "}\n"
        }
    }

    static func text(_ value: Logger.Metadata.Value) -> String {
        let text: String
        if case .string(let string) = value {
            text = string
        } else {
            text = "\(value)"
        }
        // Keep `key=value` parseable: quote values with spaces, quotes or line breaks. Looked for as bytes (every
        // line has several values), and as characters only in non-ASCII text (line breaks such as U+2028).
        var needsQuotes = text.isEmpty
        var hasNonASCII = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\"") || byte < 0x20 {
                needsQuotes = true
                break
            }
            if byte >= 0x80 { hasNonASCII = true }
        }
        if !needsQuotes && hasNonASCII {
            needsQuotes = text.contains { $0.isNewline }
        }
        return needsQuotes ? quoted(text) : text
    }

    /// A JSON string literal (also used to quote text values), escaped by the service's JSON writer.
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.writeString(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func timestamp() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
    }
}
