import HTTPServer

/// Which Tables endpoint a path names: `/tables`, `/tables/{table}/rows`, `/tables/{table}/rows/{key}`,
/// `/tables/{table}/count`.
///
/// Segments are split on the raw path and decoded one by one, so that `%2F` in a table name and `%2C` in a key part
/// stay inside their segment or part.
enum TablesRoute: Equatable {
    case list
    case rows(table: String)
    case row(table: String, key: [String])
    case count(table: String)

    /// The route of `rawPath`; nil when it is not under `/tables`; 404 `NOT_FOUND` for a path under `/tables` that
    /// names no endpoint, 400 for an invalid escape.
    static func parse(rawPath: String) throws(APIError) -> TablesRoute? {
        let utf8 = rawPath.utf8
        guard utf8.starts(with: "/tables".utf8) else { return nil }
        let afterPrefix = utf8.index(utf8.startIndex, offsetBy: 7)
        if afterPrefix == utf8.endIndex { return .list }
        guard utf8[afterPrefix] == UInt8(ascii: "/") else { return nil }
        let segments = Self.split(rawPath[utf8.index(after: afterPrefix)...], at: "/")
        // The table name first: a bad escape in it is 400 whatever follows.
        let table = try decoded(segments[0])
        switch (segments.count, segments.count > 1 ? segments[1] : "") {
        case (2, "rows"):
            return .rows(table: table)
        case (2, "count"):
            return .count(table: table)
        case (3, "rows"):
            var parts: [String] = []
            for part in Self.split(segments[2], at: ",") {
                parts.append(try decoded(part))
            }
            return .row(table: table, key: parts)
        default:
            throw .notFound("no endpoint at \(SQLiteService.printable(rawPath))")
        }
    }

    /// `text` split at every `separator`, empty pieces kept; by bytes (a split by `Character` walks grapheme
    /// clusters, and this runs for every Tables request).
    private static func split(_ text: some StringProtocol, at separator: Unicode.Scalar) -> [Substring] {
        Substring(text).utf8.split(separator: UInt8(ascii: separator), omittingEmptySubsequences: false)
            .map { Substring($0) }
    }

    private static func decoded(_ segment: Substring) throws(APIError) -> String {
        guard let text = HTTPRequest.percentDecoded(segment) else {
            throw .badRequest("invalid percent-encoding in the path")
        }
        return text
    }
}
