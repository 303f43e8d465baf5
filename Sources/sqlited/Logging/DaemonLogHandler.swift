import Foundation
import Logging
import SQLiteService

/// Writes log lines to stderr, where journald (or a terminal) collects them.
///
/// One line per event, written with a single `write(2)` so that lines from different threads never interleave.
/// The `text` format is `LEVEL label: message key=value …` (journald adds its own timestamp, so a timestamp here
/// would be noise; it is still present in `json`).
struct DaemonLogHandler: LogHandler {
    let label: String
    let format: DaemonConfiguration.LogFormat
    let levelControl: LogLevelControl
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// A level set on one logger only; otherwise the shared one applies.
    private var localLevel: Logger.Level?

    init(label: String, format: DaemonConfiguration.LogFormat, levelControl: LogLevelControl) {
        self.label = label
        self.format = format
        self.levelControl = levelControl
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
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let line: String
        switch format {
        case .text:
            let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\(Self.text($0.value))" }.joined()
            line = "\(event.level) \(label): \(event.message)\(fields)\n"
        case .json:
            var object = "{\"time\":\(Self.quoted(Self.timestamp())),\"level\":\(Self.quoted(event.level.rawValue))"
            object += ",\"label\":\(Self.quoted(label)),\"message\":\(Self.quoted("\(event.message)"))"
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                object += ",\(Self.quoted(key)):\(Self.quoted(Self.text(value)))"
            }
            line = object + "}\n"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func text(_ value: Logger.Metadata.Value) -> String {
        let text = "\(value)"
        // Keep `key=value` parseable: quote values with spaces, quotes or line breaks.
        guard text.contains(where: { $0 == " " || $0 == "\"" || $0.isNewline }) || text.isEmpty else { return text }
        return quoted(text)
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
