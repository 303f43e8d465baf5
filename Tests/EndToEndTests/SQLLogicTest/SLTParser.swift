import Foundation

/// Parses sqllogictest scripts into ``SLTRecord``s, following the reference harness (`sqllogictest.c`):
///
/// - Lines are split at LF; a trailing CR is dropped; a line of only whitespace counts as blank.
/// - A line starting with `#` is a comment and is skipped wherever it appears (it does not end a record).
/// - Records are separated by one or more blank lines. The first line is tokenized on whitespace; any number of
///   `skipif ENGINE` / `onlyif ENGINE` lines (trailing words ignored) may come first.
/// - `statement ok|error`: the SQL is every following line. `query TYPES [SORT] [LABEL]`: the SQL runs up to a
///   `----` line; the lines after it are the expected values.
///
/// Reference: <https://www.sqlite.org/sqllogictest/doc/trunk/about.wiki>.
enum SLTParser {
    /// A script that does not follow the format.
    struct ParseError: Error, CustomStringConvertible {
        var file: String
        var line: Int
        var reason: String

        var description: String { "\(file):\(line): \(reason)" }
    }

    /// Parses a script file.
    static func parse(contentsOf url: URL) throws -> [SLTRecord] {
        let data = try Data(contentsOf: url)
        return try parse(String(decoding: data, as: UTF8.self), fileName: url.lastPathComponent)
    }

    /// Parses script text; `fileName` only labels errors.
    static func parse(_ text: String, fileName: String = "<inline>") throws -> [SLTRecord] {
        var records: [SLTRecord] = []
        for group in recordGroups(text) {
            records.append(try parseRecord(group, fileName: fileName))
        }
        return records
    }

    private typealias NumberedLine = (number: Int, text: String)

    /// Splits the text into groups of non-comment lines separated by blank lines.
    private static func recordGroups(_ text: String) -> [[NumberedLine]] {
        var groups: [[NumberedLine]] = []
        var current: [NumberedLine] = []
        // Split on LF only; CR is handled per line (a "\r\n" pair is a single Character in Swift, so split bytes).
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            var bytes = rawLine[...]
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            let line = String(decoding: bytes, as: UTF8.self)
            if line.utf8.allSatisfy({ isSpace($0) }) {
                if !current.isEmpty {
                    groups.append(current)
                    current = []
                }
                continue
            }
            if line.hasPrefix("#") { continue }
            current.append((index + 1, line))
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func tokens(_ line: String) -> [String] {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    private static func parseRecord(_ group: [NumberedLine], fileName: String) throws -> SLTRecord {
        var index = 0
        var conditions: [SLTCondition] = []
        func fail(_ reason: String) -> ParseError {
            ParseError(file: fileName, line: group[min(index, group.count - 1)].number, reason: reason)
        }
        while index < group.count {
            let words = tokens(group[index].text)
            guard words.first == "skipif" || words.first == "onlyif" else { break }
            guard words.count >= 2 else { throw fail("\(words[0]) without an engine name") }
            conditions.append(words[0] == "skipif" ? .skipIf(engine: words[1]) : .onlyIf(engine: words[1]))
            index += 1
        }
        guard index < group.count else { throw fail("condition not followed by a record") }
        let line = group[index].number
        let words = tokens(group[index].text)
        let body = group[(index + 1)...].map(\.text)
        let command: SLTCommand
        switch words[0] {
        case "statement":
            guard words.count >= 2, words[1] == "ok" || words[1] == "error" else {
                throw fail("statement argument must be 'ok' or 'error'")
            }
            guard !body.isEmpty else { throw fail("statement without SQL") }
            command = .statement(expectsError: words[1] == "error", sql: body.joined(separator: "\n"))
        case "query":
            command = .query(try parseQuery(words: words, body: body, fail: fail))
        case "hash-threshold":
            guard words.count >= 2, let threshold = Int(words[1]), threshold >= 0 else {
                throw fail("hash-threshold needs a non-negative integer")
            }
            command = .hashThreshold(threshold)
        case "halt":
            command = .halt
        default:
            throw fail("unknown record type '\(words[0])'")
        }
        return SLTRecord(line: line, conditions: conditions, command: command)
    }

    private static func parseQuery(
        words: [String],
        body: [String],
        fail: (String) -> ParseError
    ) throws -> SLTQuery {
        guard words.count >= 2 else { throw fail("query without a type string") }
        var types: [SLTColumnType] = []
        for letter in words[1] {
            guard let type = SLTColumnType(rawValue: letter) else {
                throw fail("unknown type character '\(letter)' in type string")
            }
            types.append(type)
        }
        var sortMode = SLTSortMode.nosort
        if words.count >= 3 {
            guard let mode = SLTSortMode(rawValue: words[2]) else { throw fail("unknown sort method '\(words[2])'") }
            sortMode = mode
        }
        let separator = body.firstIndex(of: "----")
        let sqlLines = body[..<(separator ?? body.endIndex)]
        guard !sqlLines.isEmpty else { throw fail("query without SQL") }
        let expected = separator.map { Array(body[($0 + 1)...]) } ?? []
        return SLTQuery(
            columnTypes: types,
            sortMode: sortMode,
            label: words.count >= 4 ? words[3] : nil,
            sql: sqlLines.joined(separator: "\n"),
            expectedLines: expected
        )
    }
}
