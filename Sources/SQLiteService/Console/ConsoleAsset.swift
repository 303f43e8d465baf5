/// One file of the web console (issue #31), embedded in the binary: its name under `/ui/`, its media type, its
/// bytes and the entity tag made from them.
///
/// The files live in `Console/Assets/` as plain HTML, CSS and JavaScript modules (no build step); SwiftPM does not
/// put resources into the executable, so `scripts/embed-console-assets.py` writes them into
/// `ConsoleAsset+Files.swift` as string literals (`make console-assets`), and `ConsoleRouteTests` fails when that
/// file differs from the assets.
struct ConsoleAsset: Sendable {
    /// The file name: `index.html` (served at `/ui`), or the name after `/ui/`.
    let name: String
    /// The `Content-Type` field.
    let contentType: String
    let bytes: [UInt8]
    /// A strong entity tag (RFC 9110 §8.8.3): the first 16 bytes of the SHA-256 of the bytes, in hex, quoted.
    let etag: String

    init(name: String, text: String) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.contentType = Self.contentType(of: name)
        self.etag = "\"" + TokenStore.sha256Hex(of: text).prefix(32) + "\""
    }

    /// The media type of a file name's extension; the console has only these four kinds.
    static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }

    /// Every asset by name, made once (the hashes are computed on first use).
    static let byName: [String: ConsoleAsset] = Dictionary(
        uniqueKeysWithValues: files.map { ($0.name, ConsoleAsset(name: $0.name, text: $0.text)) }
    )
}
