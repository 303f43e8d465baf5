import Foundation
import Testing

/// The README's curl tour, replayed against the real binary: every `$ curl …` line of the first `console` block
/// is sent in order to a fresh server, and the answer must be byte for byte the output the README shows.
@Suite struct ReadmeTourTests {
    struct Step: CustomStringConvertible {
        var method: String
        var path: String
        var body: String?
        var expected: String
        var description: String { "\(method) \(path) \(body ?? "")" }
    }

    /// The tour's steps, parsed from README.md.
    static func steps() throws -> [Step] {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "```console") else { return [] }
        var steps: [Step] = []
        var index = start + 1
        while index < lines.count, lines[index] != "```" {
            let line = lines[index]
            index += 1
            guard line.hasPrefix("$ curl -s ") else { continue }
            let command = String(line.dropFirst("$ curl -s ".count))
            let expected = index < lines.count ? lines[index] : ""
            index += 1
            if command.hasPrefix("--json '") {
                // --json 'BODY' localhost:8080/PATH, where a shell-quoted ' is written '"'"'.
                guard let close = command.range(of: "' localhost:8080", options: .backwards) else { continue }
                let body = String(command[command.index(command.startIndex, offsetBy: 8)..<close.lowerBound])
                    .replacingOccurrences(of: #"'"'"'"#, with: "'")
                let path = String(command[close.upperBound...])
                steps.append(Step(method: "POST", path: path, body: body, expected: expected))
            } else if command.hasPrefix("localhost:8080") {
                steps.append(
                    Step(method: "GET", path: String(command.dropFirst("localhost:8080".count)), expected: expected)
                )
            }
        }
        return steps
    }

    /// The tour has every endpoint of the contract's core in it.
    @Test func tour_isParsed() throws {
        let paths = Set(try Self.steps().map(\.path))
        #expect(paths.isSuperset(of: ["/update", "/query", "/batch", "/transaction", "/health", "/schema"]))
    }

    /// Every step answers exactly what the README shows.
    @Test func tour_outputsMatchTheReadme() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-readme")
        let server = try ServerProcess.startSqlited(directory: directory.url)
        defer { _ = try? server.stop() }
        let client = try server.makeClient()
        for step in try Self.steps() {
            let response = try client.request(
                method: step.method,
                path: step.path,
                headers: step.body == nil ? [] : [("Content-Type", "application/json")],
                body: step.body.map { Array($0.utf8) }
            )
            #expect(response.bodyText == step.expected, "\(step)")
        }
    }
}
