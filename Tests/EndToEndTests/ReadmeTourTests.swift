import Foundation
import Testing

/// The README's curl tour, replayed against the real binary: every `$ curl …` line of the first `console` block
/// is sent in order to a fresh server, and the answer must be byte for byte the output the README shows. The Tables
/// API's tour, in `docs/api.md`, likewise. (`DocsReplayTests` replays every `console` block of every page.)
@Suite struct ReadmeTourTests {
    struct Step: CustomStringConvertible {
        var method: String
        var path: String
        var body: String?
        var expected: String
        var description: String { "\(method) \(path) \(body ?? "")" }
    }

    /// The steps of the first `console` block after the line `heading` of `page` (a path from the package root), or
    /// of its first block when `heading` is nil.
    static func steps(in page: String = "README.md", after heading: String? = nil) throws -> [Step] {
        let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(page), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let from = heading.flatMap { lines.firstIndex(of: $0) } ?? 0
        guard let start = lines[from...].firstIndex(of: "```console") else { return [] }
        var steps: [Step] = []
        var index = start + 1
        while index < lines.count, lines[index] != "```" {
            let line = lines[index]
            index += 1
            guard line.hasPrefix("$ curl -s ") else { continue }
            var command = Substring(line.dropFirst("$ curl -s ".count))
            let expected = index < lines.count ? lines[index] : ""
            index += 1
            var method: String?
            if command.hasPrefix("-X ") {
                let rest = command.dropFirst(3)
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                method = String(rest[..<end])
                command = rest[end...].drop { $0 == " " }
            }
            if command.hasPrefix("--json '") {
                // --json 'BODY' localhost:8080/PATH, where a shell-quoted ' is written '"'"'.
                guard let close = command.range(of: "' localhost:8080", options: .backwards) else { continue }
                let body = String(command[command.index(command.startIndex, offsetBy: 8)..<close.lowerBound])
                    .replacingOccurrences(of: #"'"'"'"#, with: "'")
                let path = String(command[close.upperBound...])
                steps.append(Step(method: method ?? "POST", path: path, body: body, expected: expected))
            } else {
                let url = command.hasPrefix("'") && command.hasSuffix("'") ? command.dropFirst().dropLast() : command
                guard url.hasPrefix("localhost:8080") else { continue }
                steps.append(
                    Step(
                        method: method ?? "GET",
                        path: String(url.dropFirst("localhost:8080".count)),
                        expected: expected
                    )
                )
            }
        }
        return steps
    }

    /// Replays `steps` on a fresh server. Paging cursors are signed with a key made at each start, so a cursor in
    /// the README stands for the one this server gave at the same place: it is mapped, in outputs and in the paths
    /// of later steps.
    static func replay(_ steps: [Step]) throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-readme")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        defer { _ = try? server.stop() }
        let client = try server.makeClient()
        var cursors: [String: String] = [:]
        for step in steps {
            var path = step.path
            for (shown, actual) in cursors { path = path.replacingOccurrences(of: shown, with: actual) }
            let response = try client.request(
                method: step.method,
                path: path,
                headers: step.body == nil ? [] : [("Content-Type", "application/json")],
                body: step.body.map { Array($0.utf8) }
            )
            var actual = response.bodyText
            for (shown, given) in zip(Self.cursors(in: step.expected), Self.cursors(in: actual)) {
                cursors[shown] = given
                actual = actual.replacingOccurrences(of: given, with: shown)
            }
            #expect(actual == step.expected, "\(step)")
        }
    }

    /// The values of `"next"` and `"prev"` in a body, in order.
    static func cursors(in body: String) -> [String] {
        var found: [String] = []
        var rest = Substring(body)
        while let range = rest.range(of: #""next":""#) ?? rest.range(of: #""prev":""#) {
            let value = rest[range.upperBound...]
            guard let end = value.firstIndex(of: "\"") else { break }
            found.append(String(value[..<end]))
            rest = value[end...]
        }
        return found
    }

    /// The tour has every endpoint of the contract's core in it.
    @Test func tour_isParsed() throws {
        let paths = Set(try Self.steps().map(\.path))
        #expect(paths.isSuperset(of: ["/update", "/query", "/batch", "/transaction", "/health", "/schema"]))
    }

    /// Every step answers exactly what the README shows.
    @Test func tour_outputsMatchTheReadme() throws {
        try Self.replay(try Self.steps())
    }

    /// The Tables API tour (`docs/api.md`): every step answers what the page shows.
    @Test func tablesTour_outputsMatchTheReadme() throws {
        let steps = try Self.steps(in: "docs/api.md", after: "## The Tables API")
        #expect(!steps.isEmpty)
        #expect(Set(steps.map(\.method)) == ["GET", "POST", "PATCH", "DELETE"])
        #expect(steps.contains { $0.path.contains("_after=") })
        try Self.replay(steps)
    }
}
