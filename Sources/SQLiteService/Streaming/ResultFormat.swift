import HTTPServer

/// The formats a result is sent in, chosen by the request's `Accept` field (``negotiate(accept:)``): the JSON result
/// object, or a result streamed as rows are read (``StreamedResultWriter``).
enum ResultFormat: Sendable, Equatable, CaseIterable {
    /// `application/json`: the result object, built whole.
    case json
    /// `application/x-ndjson`: a head line, a line per row, a last line with the row count or the error.
    case ndjson
    /// `text/csv` (RFC 4180): a header record, a record per row; an error cuts the response.
    case csv

    /// The media type each format is negotiated by: `type/subtype`, lower case.
    var mediaType: (type: String, subtype: String) {
        switch self {
        case .json: ("application", "json")
        case .ndjson: ("application", "x-ndjson")
        case .csv: ("text", "csv")
        }
    }

    /// The `Content-Type` of a response in this format.
    var contentType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .ndjson: "application/x-ndjson"
        case .csv: "text/csv; charset=utf-8; header=present"
        }
    }

    /// Whether the result is streamed (sent as rows are read).
    var isStreamed: Bool { self != .json }

    /// The format `accept` (the values of every `Accept` field of the request, in order) prefers, by RFC 9110
    /// §12.5.1: each format takes the weight of the most specific media range that matches it (`type/subtype`, then
    /// `type/*`, then `*/*`; parameters other than the weight are not compared), and the heaviest format above 0
    /// wins; on a tie JSON, then NDJSON, then CSV (so `application/*` is JSON). No field, or a field that is not
    /// valid `Accept` syntax (which RFC 9110 lets a server disregard), is JSON.
    ///
    /// - Throws: 406 `NOT_ACCEPTABLE` when every format has weight 0 (only other types are listed, or these at
    ///   `q=0`).
    static func negotiate(accept: [String]) throws(APIError) -> ResultFormat {
        guard !accept.isEmpty, let ranges = MediaRange.parseList(accept.joined(separator: ",")), !ranges.isEmpty
        else { return .json }
        var best: (format: ResultFormat, weight: Int)?
        for format in allCases {
            let weight = format.weight(in: ranges)
            if weight > 0, weight > best?.weight ?? 0 { best = (format, weight) }
        }
        guard let best else {
            throw .notAcceptable(
                "Accept allows none of application/json, application/x-ndjson and text/csv; send one of them"
            )
        }
        return best.format
    }

    /// This format's weight (0…1000) under `ranges`: that of the most specific range matching it, 0 when none does.
    private func weight(in ranges: [MediaRange]) -> Int {
        let (type, subtype) = mediaType
        var match: (specificity: Int, weight: Int)?
        for range in ranges {
            let specificity: Int
            if range.type == "*" && range.subtype == "*" {
                specificity = 0
            } else if range.type == type && range.subtype == "*" {
                specificity = 1
            } else if range.type == type && range.subtype == subtype {
                specificity = 2
            } else {
                continue
            }
            if specificity > match?.specificity ?? -1 { match = (specificity, range.weight) }
        }
        return match?.weight ?? 0
    }
}

/// One element of an `Accept` field (RFC 9110 §12.5.1): `type/subtype`, lower case, and its weight in thousandths
/// (`q=0.5` → 500; 1000 without `q`).
struct MediaRange: Equatable {
    var type: String
    var subtype: String
    var weight: Int

    /// The ranges of a comma-separated list (empty elements allowed, RFC 9110 §5.6.1); nil when an element is not
    /// `type "/" subtype *( OWS ";" OWS [ parameter ] )` (a parameter's value a token or a quoted string) or its
    /// `q` is not a valid weight.
    static func parseList(_ text: String) -> [MediaRange]? {
        var scanner = Scanner(bytes: Array(text.utf8))
        var ranges: [MediaRange] = []
        while true {
            scanner.skipOWS()
            if scanner.peek == UInt8(ascii: ",") {
                scanner.index += 1
                continue
            }
            guard scanner.peek != nil else { return ranges }
            guard let range = scanner.mediaRange() else { return nil }
            ranges.append(range)
            scanner.skipOWS()
            guard scanner.peek == nil || scanner.peek == UInt8(ascii: ",") else { return nil }
        }
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` in thousandths (RFC 9110 §12.4.2).
    static func weight(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var thousandths = first == UInt8(ascii: "1") ? 1000 : 0
        guard bytes.count > 1 else { return thousandths }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5 else { return nil }
        var scale = 100
        for digit in bytes[2...] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            if first == UInt8(ascii: "1") && digit != UInt8(ascii: "0") { return nil }
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return thousandths
    }

    /// Reads `Accept` syntax from bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipOWS() {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
        }

        mutating func token() -> String? {
            let start = index
            while let byte = peek, ASCII.isTokenCharacter(byte) { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// `quoted-string` (RFC 9110 §5.6.4), its value unescaped.
        mutating func quotedString() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            index += 1
            var value: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    index += 1
                    value.append(escaped)
                default:
                    value.append(byte)
                }
            }
            return nil
        }

        mutating func mediaRange() -> MediaRange? {
            guard let type = token(), peek == UInt8(ascii: "/") else { return nil }
            index += 1
            guard let subtype = token() else { return nil }
            var range = MediaRange(type: type.lowercased(), subtype: subtype.lowercased(), weight: 1000)
            guard range.type != "*" || range.subtype == "*" else { return nil }
            var sawWeight = false
            while true {
                let mark = index
                skipOWS()
                guard peek == UInt8(ascii: ";") else {
                    index = mark
                    return range
                }
                index += 1
                skipOWS()
                // An empty parameter (`;;`, a trailing `;`) is allowed.
                guard let byte = peek, byte != UInt8(ascii: ";"), byte != UInt8(ascii: ",") else { continue }
                guard let name = token(), peek == UInt8(ascii: "=") else { return nil }
                index += 1
                guard let value = peek == UInt8(ascii: "\"") ? quotedString() : token() else { return nil }
                // Parameters after the weight are accept-extensions (RFC 9110 §12.4.2), ignored.
                if !sawWeight && name.lowercased() == "q" {
                    guard let weight = MediaRange.weight(value) else { return nil }
                    range.weight = weight
                    sawWeight = true
                }
            }
        }
    }
}
