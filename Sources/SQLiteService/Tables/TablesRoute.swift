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

    /// The metrics label of each route (never the table name or key, which clients choose).
    var label: String {
        switch self {
        case .list: "/tables"
        case .rows: "/tables/{table}/rows"
        case .row: "/tables/{table}/rows/{key}"
        case .count: "/tables/{table}/count"
        }
    }

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

    /// Labels for the metrics of any path under `/tables` (decoded; a `/` inside a name only changes the label).
    static func label(ofPath path: String) -> String? {
        // By bytes, without splitting: the metrics and the request log ask for every request.
        var path = path
        return path.withUTF8 { bytes -> String? in
            let prefix = "/tables".utf8
            guard bytes.count >= prefix.count, bytes.prefix(prefix.count).elementsEqual(prefix) else { return nil }
            if bytes.count == prefix.count { return "/tables" }
            guard bytes[prefix.count] == UInt8(ascii: "/") else { return nil }
            let rest = bytes[(prefix.count + 1)...]
            var slashes: [Int] = []
            for index in rest.indices where rest[index] == UInt8(ascii: "/") {
                slashes.append(index)
                if slashes.count > 2 { return nil }
            }
            func segment(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            switch slashes.count {
            case 1:
                switch segment((slashes[0] + 1)..<bytes.count) {
                case "rows": return "/tables/{table}/rows"
                case "count": return "/tables/{table}/count"
                default: return nil
                }
            case 2:
                return segment((slashes[0] + 1)..<slashes[1]) == "rows" ? "/tables/{table}/rows/{key}" : nil
            default:
                return nil
            }
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
